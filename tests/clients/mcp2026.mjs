// A real MCP 2026-07-28 client, the official TypeScript SDK (`@modelcontextprotocol/client`, pinned in
// scripts/install-deps.sh), driving the `gatehouse` binary over stdio or streamable HTTP for the e2e tests
// (tests/e2e/stdio.rs, tests/e2e/http.rs). The same assistant as mcp2026.py: discovers the server (or pins the
// revision), lists the tools, listens for changes of server://auth-status, finds the sandbox's "Budget 2026",
// reads from it, writes one cell (which waits for the person: the Rust test answers the card with
// `gatehouse approvals`) and reads it back. Each step prints one JSON line on stdout for the test to check.
//
//   node mcp2026.mjs --stdio GATEHOUSE_BIN | --http URL --token TOKEN  [--name NAME] [--mode auto|2026-07-28]
//
// The SDK is loaded from the folder install-deps.sh installs it in: $GATEHOUSE_TOOLS (default target/tools).
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

const tools = process.env.GATEHOUSE_TOOLS ?? path.resolve(import.meta.dirname, '../../target/tools');
const require = createRequire(path.join(tools, 'package.json'));
const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');

const AUTH_STATUS = 'server://auth-status';
const say = (step, fields = {}) => process.stdout.write(JSON.stringify({ step, ...fields }) + '\n');
const textOf = (result) => (result.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join('\n');

async function call(client, step, name, args) {
  const result = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
  const text = textOf(result);
  say(step, { is_error: Boolean(result.isError), text });
  return { result, text };
}

async function scenario(client, value) {
  say('connected', { protocol: client.getNegotiatedProtocolVersion() });
  const listed = await client.listTools();
  say('tools', { count: listed.tools.length, names: listed.tools.map((t) => t.name) });
  const subscription = await client.listen({ resourceSubscriptions: [AUTH_STATUS] });
  say('listen', { honored: subscription.honoredFilter.resourceSubscriptions ?? [] });
  await subscription.close();
  const found = await call(client, 'search', 'search_spreadsheets', { query: 'Budget 2026' });
  if (found.result.isError) return;
  const sheet = JSON.parse(found.result.content[0].text).spreadsheets[0].id;
  await call(client, 'read', 'get_sheet_data', { spreadsheet_id: sheet, sheet: 'Sales', range: 'A1:F2' });
  await call(client, 'write', 'update_cells', { spreadsheet_id: sheet, sheet: 'Sales', range: 'H1', data: [[value]] });
  await call(client, 'readback', 'get_sheet_data', { spreadsheet_id: sheet, sheet: 'Sales', range: 'H1' });
}

async function main() {
  const { values: args } = parseArgs({
    options: {
      stdio: { type: 'string' },
      http: { type: 'string' },
      token: { type: 'string' },
      name: { type: 'string', default: 'typescript-sdk-2026' },
      mode: { type: 'string', default: 'auto' },
      value: { type: 'string', default: 'from the TypeScript SDK' },
    },
  });
  const mode = args.mode === 'auto' ? 'auto' : { pin: args.mode };
  const client = new Client({ name: args.name, version: '1' }, { versionNegotiation: { mode } });
  const transport = args.stdio
    ? new StdioClientTransport({ command: args.stdio, args: ['serve', '--sandbox'], env: { ...process.env }, stderr: 'ignore' })
    : new StreamableHTTPClientTransport(new URL(args.http), {
        requestInit: { headers: { Authorization: `Bearer ${args.token}` } },
      });
  await client.connect(transport);
  try {
    await scenario(client, args.value);
  } finally {
    await client.close();
  }
  say('done');
}

main().catch((error) => {
  say('failed', { error: `${error?.name}: ${error?.message}` });
  process.exit(1);
});
