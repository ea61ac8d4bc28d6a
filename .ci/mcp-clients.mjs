// Driven by .ci/mcp-clients.sh: CTX (the binary), PROJ (the demo project),
// INSPECTOR (the Inspector launcher), argv[1] the calls file.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.env.NODE_PATH + "/");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const calls = JSON.parse(readFileSync(process.argv[1], "utf8"));
const ctx = process.env.CTX, proj = process.env.PROJ;
let failed = 0;
const ok = (m) => console.error("mcp-clients: ok: " + m);
const fail = (m) => { console.error("mcp-clients: FAIL: " + m); failed++; };

function inspector(args) {
  return spawnSync("node", [process.env.INSPECTOR, "--cli", ctx, "-C", proj, "mcp", ...args],
    { encoding: "utf8", timeout: 60000 });
}

// 1. The Inspector CLI: --strict tools/list, then every tool.
const list = inspector(["--method", "tools/list", "--strict"]);
if (list.status !== 0) fail(`Inspector --strict tools/list: exit ${list.status}\n${list.stderr}`);
else if (/warning|error/i.test(list.stderr)) fail(`Inspector --strict reports schema problems:\n${list.stderr.slice(0, 3000)}`);
else ok(`Inspector --strict tools/list: no schema problem`);
const tools = list.status === 0 ? JSON.parse(list.stdout).tools.map((t) => t.name) : [];
for (const name of tools) {
  if (!calls[name]) { fail(`tool ${name} has no calls in .ci/mcp-calls.json`); continue; }
  for (const args of calls[name]) {
    const kv = Object.entries(args).flatMap(([k, v]) => [k + "=" + (typeof v === "string" ? v : JSON.stringify(v))]);
    const r = inspector(["--method", "tools/call", "--tool-name", name, ...(kv.length ? ["--tool-arg", ...kv] : [])]);
    let res;
    try { res = JSON.parse(r.stdout); } catch { res = null; }
    if (r.status !== 0 || !res || res.isError || !res.content?.length) {
      fail(`Inspector tools/call ${name} ${JSON.stringify(args)}: exit ${r.status}\n${(r.stdout + r.stderr).slice(0, 1500)}`);
    }
  }
}
if (tools.length) ok(`Inspector tools/call: all ${tools.length} tools answered`);

// What Claude Code, Codex and OpenCode give the model of a result: the JSON
// of structuredContent when there is one, else the text contents.
const view = (r) => r.structuredContent !== undefined ? JSON.stringify(r.structuredContent)
  : (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
// What some tools' answers must show in that view (the text that answers).
const wantInView = { read_relevant: /\[1\] platform-runbooks\/\S+ · /, get_document: /roll/i, get_section: /roll/i, search: /"snippet":"[^"]*\*\*/ };

// 2. The TypeScript SDK over stdio.
const client = new Client({ name: "ctx-ci", version: "0" });
await client.connect(new StdioClientTransport({ command: ctx, args: ["-C", proj, "mcp"], stderr: "ignore" }));
const sdkTools = (await client.listTools()).tools.map((t) => t.name);
if (sdkTools.join() !== [...tools].join() && tools.length) fail(`the SDK lists ${sdkTools}, the Inspector ${tools}`);
for (const name of sdkTools) {
  for (const args of calls[name] ?? []) {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError || !r.content?.length) { fail(`SDK callTool ${name}: ${JSON.stringify(r).slice(0, 1500)}`); continue; }
    const v = view(r);
    if (!v.trim()) fail(`${name} ${JSON.stringify(args)}: nothing in the client's view`);
    if (wantInView[name] && !wantInView[name].test(v)) fail(`${name} ${JSON.stringify(args)}: the client's view does not show the answer: ${v.slice(0, 800)}`);
    if (r.structuredContent !== undefined) {
      const texts = r.content.filter((c) => c.type === "text");
      if (texts.length !== 1 || JSON.stringify(JSON.parse(texts[0].text)) !== JSON.stringify(r.structuredContent)) {
        fail(`${name}: structuredContent and the text differ: ${JSON.stringify(r).slice(0, 800)}`);
      }
    }
  }
}
ok(`TypeScript SDK: all ${sdkTools.length} tools answered, each whole in the structuredContent-else-text view`);
const nul = await client.callTool({ name: "search", arguments: { query: "roll back", packages: null, limit: null } });
if (nul.isError) fail(`search with null packages and limit: ${JSON.stringify(nul).slice(0, 800)}`);
else ok("search with null optional arguments");
let resources = [], cursor;
do {
  const page = await client.listResources(cursor ? { cursor } : {});
  resources.push(...page.resources);
  cursor = page.nextCursor;
} while (cursor);
const doc = resources.find((r) => r.uri.startsWith("ctx://packages/"));
if (!doc) fail(`resources/list has no document: ${JSON.stringify(resources).slice(0, 500)}`);
else {
  const read = await client.readResource({ uri: doc.uri });
  if (!read.contents?.[0]?.text) fail(`resources/read ${doc.uri}: no text`);
  else ok(`resources/list (${resources.length}) and resources/read`);
}
const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
if (!prompts.includes("ask-docs")) fail(`prompts/list: ${prompts}`);
else {
  const p = await client.getPrompt({ name: "ask-docs", arguments: { question: "how do I roll back a deploy?" } });
  if (!p.messages?.length) fail("prompts/get ask-docs: no messages");
  else ok("prompts/get ask-docs");
}
const comp = await client.complete({ ref: { type: "ref/resource", uri: "ctx://packages/{alias}/{+path}" }, argument: { name: "alias", value: "platform" } });
if (!comp.completion.values.includes("platform-runbooks")) fail(`completion of alias "platform": ${JSON.stringify(comp)}`);
else ok("completion/complete of {alias}");
await client.close();

if (failed) { console.error(`mcp-clients: ${failed} check(s) failed`); process.exit(1); }
console.error(`mcp-clients: all checks passed (Inspector ${process.env.INSPECTOR_V}, TypeScript SDK ${process.env.SDK_V})`);
