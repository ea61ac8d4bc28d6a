package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxFrameBytes bounds one inbound line (as the SDK's default does).
const maxFrameBytes = mcp.DefaultMaxLineLength

// LineTransport is newline-delimited JSON-RPC over a reader and a writer, like
// the SDK's stdio transport, but a malformed line does not end the session:
// it is answered with a JSON-RPC error (parse error or invalid request, id
// null when none can be read) and the next line is read. The SDK's own
// transport closes the connection on the first bad frame.
type LineTransport struct {
	In  io.ReadCloser
	Out io.Writer
}

// Connect implements mcp.Transport.
func (t *LineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{in: t.In, out: t.Out, lines: make(chan lineOrErr), closed: make(chan struct{}),
		pending: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}
	go c.readLoop()
	return c, nil
}

type lineOrErr struct {
	line []byte
	err  error // io.EOF at the end; or a line that was too long (tooLong)
}

var errTooLong = errors.New("frame too long")

type lineConn struct {
	in  io.ReadCloser
	out io.Writer

	// Requests read and not yet answered, so that at the end of the input
	// the answers still get written before the session ends.
	pendingMu sync.Mutex
	pending   map[jsonrpc.ID]bool
	answered  chan struct{} // signalled (non-blocking) on every answer

	writeMu sync.Mutex
	lines   chan lineOrErr

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

func (c *lineConn) SessionID() string { return "" }

// readLoop reads lines until EOF or Close; it runs in its own goroutine so
// that Close unblocks Read.
func (c *lineConn) readLoop() {
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, err := readLine(r, maxFrameBytes)
		if err == errTooLong {
			line, err = nil, errTooLong
		} else if err != nil && len(line) == 0 {
			select {
			case c.lines <- lineOrErr{err: err}:
			case <-c.closed:
			}
			return
		} else {
			err = nil
		}
		select {
		case c.lines <- lineOrErr{line: line, err: err}:
		case <-c.closed:
			return
		}
	}
}

// readLine reads one line without its newline. A line longer than max is
// consumed to its end and reported as errTooLong.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > max {
			for err == bufio.ErrBufferFull {
				_, err = r.ReadSlice('\n')
			}
			return nil, errTooLong
		}
		buf = append(buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(buf, []byte("\n")), err
	}
}

// Read returns the next valid message, answering invalid ones.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l lineOrErr
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.err == errTooLong {
			c.reject(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", maxFrameBytes))
			continue
		}
		if l.err != nil {
			if l.err == io.EOF {
				c.drain(ctx)
			}
			return nil, l.err
		}
		data := bytes.TrimSpace(l.line)
		if len(data) == 0 {
			continue
		}
		if !json.Valid(data) {
			c.reject(nil, jsonrpc.CodeParseError, "parse error: not valid JSON")
			continue
		}
		if data[0] == '[' {
			c.reject(nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported: send one message per line")
			continue
		}
		msg, err := jsonrpc.DecodeMessage(data)
		if err != nil {
			c.reject(data, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.pendingMu.Lock()
			c.pending[req.ID] = true
			c.pendingMu.Unlock()
		}
		return msg, nil
	}
}

// reject answers a bad frame. Its id is echoed when the frame has a usable
// one; a frame that looks like a notification or response gets no answer.
func (c *lineConn) reject(data []byte, code int64, msg string) {
	id := json.RawMessage("null")
	if data != nil {
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		if json.Unmarshal(data, &probe) == nil {
			switch {
			case len(probe.ID) > 0 && (probe.ID[0] == '"' || probe.ID[0] == '-' || (probe.ID[0] >= '0' && probe.ID[0] <= '9')):
				id = probe.ID
			case probe.Method != nil:
				return // a broken notification: nothing to answer
			}
		}
	}
	m, _ := json.Marshal(msg)
	line := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, m)
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, _ = c.out.Write(line) // a broken pipe surfaces on the next Write
}

// Write writes one message as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	// Answers to requests read before the input ended are still written:
	// only the writer failing stops them.
	data, err := jsonrpc.EncodeMessage(msg)
	if resp, ok := msg.(*jsonrpc.Response); ok && err != nil {
		// An answer that cannot be encoded must not end the session: the
		// SDK treats a failed Write as a broken connection, and every later
		// call would fail. Send what can be sent instead.
		data, err = jsonrpc.EncodeMessage(encodable(resp, err))
	}
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	data = append(data, '\n')
	c.writeMu.Lock()
	_, err = c.out.Write(data)
	c.writeMu.Unlock()
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.pendingMu.Lock()
		delete(c.pending, resp.ID)
		c.pendingMu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

// encodable returns a response to the same request that always encodes,
// for resp, whose encoding failed with err: its error without the error's
// data (raw JSON that a handler built wrongly), or an internal error when
// the result itself is not valid JSON.
func encodable(resp *jsonrpc.Response, err error) *jsonrpc.Response {
	var we *jsonrpc.Error
	if errors.As(resp.Error, &we) {
		return &jsonrpc.Response{ID: resp.ID, Error: &jsonrpc.Error{Code: we.Code, Message: we.Message}}
	}
	return &jsonrpc.Response{ID: resp.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("internal error: ctx could not encode its answer (%v); the server is still running, try again or report this bug", err)}}
}

// drainWait bounds how long the end of the input waits for answers.
const drainWait = 30 * time.Second

// drain waits, at the end of the input, until every request read has been
// answered (a client that writes its requests and closes stdin still gets
// the answers), the connection is closed, or drainWait passes.
func (c *lineConn) drain(ctx context.Context) {
	timeout := time.NewTimer(drainWait)
	defer timeout.Stop()
	for {
		c.pendingMu.Lock()
		n := len(c.pending)
		c.pendingMu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		case <-timeout.C:
			return
		}
	}
}

// Close closes the input and unblocks Read.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.closeErr = c.in.Close()
	})
	return c.closeErr
}
