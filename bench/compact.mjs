// Result compactness: each read tool's result, as the built server returns it, against the raw API
// answer it was made from. The answers come from a fixture server on 127.0.0.1.
import { createServer } from 'node:http';
import { READ_FIXTURES } from './fixtures.mjs';
import { connectStdio } from './mcp.mjs';
import { cleanEnv, OURS } from './targets.mjs';
import { measureText, resultText } from './tokens.mjs';

/** Answers each fixture's request with its answer, anything else with 404. */
async function serveFixtures(fixtures) {
  const server = createServer((req, res) => {
    const fixture = fixtures.find((f) => f.method === req.method && f.path === req.url?.split('?')[0]);
    res.writeHead(fixture ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(fixture ? fixture.answer : { detail: 'Not Found' }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

export async function measureCompactness() {
  const fixtures = await serveFixtures(READ_FIXTURES);
  const env = cleanEnv({ APPMGMT_BASE_URL: fixtures.url, APPMGMT_ACCESS_TOKEN: 'bench-token', APPMGMT_API_KEY: 'bench-key' });
  const ours = await connectStdio({ command: process.execPath, args: [OURS], env });
  try {
    const rows = [];
    for (const fixture of READ_FIXTURES) {
      const result = await ours.client.callTool({ name: fixture.tool, arguments: fixture.args });
      if (result.isError) throw new Error(`${fixture.tool} failed on its fixture: ${resultText(result)}`);
      const raw = measureText(JSON.stringify(fixture.answer));
      const answer = measureText(resultText(result));
      rows.push({ fixture: fixture.name, tool: fixture.tool, raw, result: answer, share: round2(answer.o200k / raw.o200k) });
    }
    return rows;
  } finally {
    await ours.close();
    fixtures.close();
  }
}

const round2 = (value) => Math.round(value * 100) / 100;
