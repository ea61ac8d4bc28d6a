# A small image of ctx for a team's `ctx mcp --http`: a static binary, run
# as a non-root user, serving the project mounted at /project.
#
#   docker build -t ctx .
#   docker run --rm -p 7420:7420 -v "$PWD:/project" -e CTX_MCP_TOKEN=... ctx
#
# The MCP endpoint is http://HOST:7420/mcp (Authorization: Bearer TOKEN);
# GET /healthz answers "ok" with no token and tells nothing of the
# documents. The project must be installed (`ctx install`) and readable by
# uid 65532.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/ctx ./cmd/ctx

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ctx /usr/local/bin/ctx
USER 65532:65532
WORKDIR /project
ENV CTX_CACHE=/tmp/ctx-cache
EXPOSE 7420
HEALTHCHECK NONE
ENTRYPOINT ["/usr/local/bin/ctx", "-C", "/project", "mcp", "--http", "0.0.0.0:7420", "--allow-remote"]
