import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { runNode, BIN } from '../process.js';
import { campaign, connectHttp, ERAS, serveInProcess, startHttp, type HttpProcess } from './harness.js';

/**
 * `app-management-mcp http` as a team runs it: the built server as a process, clients of every
 * protocol era over Streamable HTTP, each request with its user's own credentials, against a
 * sandbox in this process that records every request the server sends upstream.
 */

describe('app-management-mcp http', () => {
  let sandbox: Sandbox;
  let server: HttpProcess;
  let headers: Record<string, string>;
  const creates = () => sandbox.requests.filter((request) => request.method === 'POST' && request.rawPath.endsWith('/campaigns'));

  beforeAll(async () => {
    sandbox = await startSandbox({ control: true });
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    headers = { authorization: `Bearer ${accessToken}`, 'x-appmgmt-api-key': apiKey };
    server = await startHttp([], { APPMGMT_BASE_URL: sandbox.url, APPMGMT_LOG_LEVEL: 'debug', APPMGMT_HTTP_MAX_BODY_BYTES: '65536' });
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    await sandbox.close();
  });
  beforeEach(() => sandbox.reset());

  for (const era of ERAS) {
    describe(`a ${era} client`, () => {
      it('lists every tool and reads with the credentials its requests carry', async () => {
        const client = await connectHttp(server.mcp, era, { headers });
        try {
          expect(await client.listTools()).toHaveLength(28);
          const result = await client.callTool('list_ad_campaigns', { app_id: 'app_demo' });
          expect(result.isError).toBe(false);
          expect(result.structured).toHaveProperty('campaigns');
          expect(sandbox.requests.at(-1)?.headers.authorization).toBe(headers.authorization);
        } finally {
          await client.close();
        }
      });

      it('sends a costly request only on the confirmation of a warning, once', async () => {
        const client = await connectHttp(server.mcp, era, { headers });
        try {
          const args = campaign(`Once ${era}`);
          const warning = await client.callTool('create_ad_campaign', args);
          expect(warning.structured).toMatchObject({ confirmation_needed: true });
          expect(creates()).toHaveLength(0);
          const done = await client.callTool('create_ad_campaign', { ...args, confirm: true });
          expect(done.structured).toMatchObject({ confirmation_needed: false, status: 'ENABLED' });
          const again = await client.callTool('create_ad_campaign', { ...args, confirm: true });
          expect(again.text).toMatch(/^NOT SENT/);
          expect(creates()).toHaveLength(1);
        } finally {
          await client.close();
        }
      });

      it('answers a request without credentials with a tool error naming the header', async () => {
        const client = await connectHttp(server.mcp, era);
        try {
          const result = await client.callTool('list_ad_campaigns', { app_id: 'app_demo' });
          expect(result.isError).toBe(true);
          expect(result.text).toMatch(/^Set the Authorization: Bearer header to call this tool\. Nothing was sent\./);
          expect(sandbox.requests).toHaveLength(0);
        } finally {
          await client.close();
        }
      });
    });
  }

  it('keeps users apart: one cannot confirm, see or block another one’s warning', async () => {
    const alice = await connectHttp(server.mcp, '2026-07-28', { headers });
    const bob = await connectHttp(server.mcp, '2025-11-25', { headers: { authorization: 'Bearer bob-token-1234' } });
    try {
      const args = campaign('Alice only');
      await alice.callTool('create_ad_campaign', args);
      const stolen = await bob.callTool('create_ad_campaign', { ...args, confirm: true });
      expect(stolen.text).toMatch(/^NOT SENT: confirm: true needs a pending warning for exactly these arguments, and there is none/);
      expect(stolen.text).not.toMatch(/other arguments/);
      expect(creates()).toHaveLength(0);
      expect((await alice.callTool('create_ad_campaign', { ...args, confirm: true })).isError).toBe(false);
      expect(creates()).toHaveLength(1);
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });

  it('asks a 2026-07-28 client for approval in a round trip when it shows forms, and acts once', async () => {
    const client = await connectHttp(server.mcp, '2026-07-28', { headers, capabilities: { elicitation: { form: {} } } });
    try {
      const asked = client.answerForms(() => ({ action: 'accept', content: { approve: true } }));
      const args = campaign('Approved');
      await client.callTool('create_ad_campaign', args);
      const done = await client.callTool('create_ad_campaign', { ...args, confirm: true });
      expect(asked).toEqual([expect.stringContaining('daily budget 5.00')]);
      expect(done.isError).toBe(false);
      expect(creates()).toHaveLength(1);
      const declined = campaign('Declined');
      client.answerForms(() => ({ action: 'decline' }));
      await client.callTool('create_ad_campaign', declined);
      expect((await client.callTool('create_ad_campaign', { ...declined, confirm: true })).text).toMatch(/did not approve \(declined\)\. Nothing was sent/);
      expect(creates()).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('refuses a request whose Host or Origin is not allowed (DNS rebinding), sending nothing', async () => {
    const port = Number(server.mcp.port);
    const post = (extra: Record<string, string>) => raw(port, 'POST', '/mcp', initialize, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra });
    expect((await post({ host: `evil.example:${port}` })).status).toBe(403);
    expect((await post({ host: 'localhost' })).status).toBe(403);
    expect((await post({ host: `localhost:${port}`, origin: 'http://localhost:3000' })).status).toBe(403);
    expect((await post({ host: `localhost:${port}`, origin: 'null' })).status).toBe(403);
    expect((await post({ host: `localhost:${port}`, origin: `https://evil.example` })).status).toBe(403);
    const refused = await post({ host: `127.0.0.1:${port}`, origin: 'https://evil.example' });
    expect(refused.body).toContain('"message":"Forbidden: requests from this Origin are not allowed (APPMGMT_HTTP_ALLOWED_ORIGINS)."');
    expect((await post({ host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await post({ host: `[::1]:${port}` })).status).toBe(200);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('answers 400 to two Host or two Origin headers, whichever comes first, running nothing', async () => {
    const port = Number(server.mcp.port);
    const call = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_ad_campaigns', arguments: { app_id: 'app_demo' } } });
    const send = (head: string[]) =>
      rawHead(port, ['POST /mcp HTTP/1.1', ...head, `authorization: ${headers.authorization}`, 'content-type: application/json', 'accept: application/json, text/event-stream', 'mcp-protocol-version: 2025-11-25'], call);
    const good = `Host: 127.0.0.1:${port}`;
    for (const head of [
      [good, 'Host: evil.example'],
      ['Host: evil.example', good],
      [good, `host: 127.0.0.1:${port}`],
      [good, 'HOST: localhost'],
    ]) {
      const answer = await send(head);
      expect(answer, head.join(' / ')).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toContain('Bad request: more than one Host header.');
    }
    const twoOrigins = await send([good, `Origin: http://127.0.0.1:${port}`, 'Origin: https://evil.example']);
    expect(twoOrigins).toMatch(/^HTTP\/1\.1 400 [^]*more than one Origin header/);
    expect(await send(['Host: evil.example', 'Host: other.example'])).toMatch(/^HTTP\/1\.1 400 /);
    expect(sandbox.requests).toHaveLength(0);
    // The same request with one Host header runs: the 400s above were the duplicates, not the request.
    const once = await raw(port, 'POST', '/mcp', call, {
      host: `127.0.0.1:${port}`,
      authorization: headers.authorization!,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    });
    expect([once.status, once.body]).toEqual([200, expect.stringMatching(/campaigns on app app_demo/)]);
    expect(sandbox.requests).toHaveLength(1);
  });

  it('answers 413 to a body over APPMGMT_HTTP_MAX_BODY_BYTES, sending nothing', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_ad_campaign', arguments: { ...campaign('x'.repeat(70_000)) } } });
    const answer = await raw(Number(server.mcp.port), 'POST', '/mcp', big, { host: `127.0.0.1:${server.mcp.port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    expect(answer.status).toBe(413);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('answers 413 to a chunked body over the limit as well, once the limit is passed', async () => {
    const socket = connect(Number(server.mcp.port), '127.0.0.1');
    const head = [`POST /mcp HTTP/1.1`, `host: 127.0.0.1:${server.mcp.port}`, 'content-type: application/json', 'accept: application/json, text/event-stream', 'transfer-encoding: chunked', 'connection: close'];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    const chunk = `{"pad":"${'x'.repeat(16_000)}",`;
    for (let i = 0; i < 5; i++) socket.write(`${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`);
    const answer = await closed(socket);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":-32000');
    expect(answer).toContain('must not exceed 65536 bytes');
    expect(sandbox.requests).toHaveLength(0);
  });

  // The server reads and parses a POST's body before the SDK sees it (src/transports/body.ts): what is not JSON still gets the SDK's own answer.
  it.each([
    ['not JSON', '{"jsonrpc":"2.0","id":1,'],
    ['empty', ''],
  ])('answers a body that is %s as the SDK does, and one with a byte order mark as JSON', async (_name, body) => {
    const port = Number(server.mcp.port);
    const post = (text: string) => raw(port, 'POST', '/mcp', text, { host: `127.0.0.1:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' });
    const answer = await post(body);
    expect(answer.status).toBe(400);
    const json = answer.body.slice(answer.body.indexOf('{'), answer.body.lastIndexOf('}') + 1); // the answer may come chunked
    expect(JSON.parse(json)).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: Invalid JSON' }, id: null });
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const listed = await post(`\ufeff${list}`);
    expect(listed.status).toBe(200);
    expect(listed.body).toContain('list_campaign_suggestions');
  });

  it('answers /healthz and /readyz, and 404 elsewhere', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', gate: 'ok' }]);
    expect((await fetch(`${server.url}/other`)).status).toBe(404);
  });

  it("tells a foreign Host or Origin nothing of the gate on /readyz; /healthz says only that it is alive", async () => {
    const port = Number(server.mcp.port);
    const get = (path: string, headers: Record<string, string>) => raw(port, 'GET', path, '', headers);
    const foreign: Array<Record<string, string>> = [{ host: `evil.example:${port}` }, { host: `127.0.0.1:${port}`, origin: 'https://evil.example' }];
    for (const headers of foreign) {
      const ready = await get('/readyz', headers);
      expect(ready.status).toBe(403);
      expect(ready.body).not.toMatch(/gate|ready|redis|policy/i);
      const health = await get('/healthz', headers);
      expect(health.status).toBe(200);
      expect(health.body).toContain('{"status":"ok"}');
    }
    expect((await get('/readyz', { host: `localhost:${port}` })).status).toBe(200);
  });

  it('answers resources/read of an unknown URI without echoing it in full', async () => {
    // As long as this server's body limit allows (64 KiB): echoed twice, it was an answer of twice that.
    const uri = `ui://app-management/${'x'.repeat(60_000)}.html`;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri } });
    const response = await fetch(server.mcp, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body,
    });
    const answer = await response.text();
    expect(answer.length).toBeLessThan(2_000);
    const error = (JSON.parse(/^data: (.*)$/m.exec(answer)?.[1] ?? answer) as { error: { code: number; message: string; data: { uri: string } } }).error;
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^Resource not found: ui:\/\/app-management\/x+\u2026$/);
    expect(error.data.uri).toMatch(/^ui:\/\/app-management\/x+\u2026$/);
  });

  it('takes many calls at once without a warning in its log', async () => {
    const client = await connectHttp(server.mcp, '2026-07-28', { headers });
    try {
      sandbox.script({ status: 200, hang: true, times: 20 });
      const calls = Array.from({ length: 20 }, () => client.callTool('list_ad_campaigns', { app_id: 'app_demo' }));
      while (sandbox.requests.length < 20) await new Promise((resolve) => setTimeout(resolve, 10));
      sandbox.release();
      for (const result of await Promise.all(calls)) expect(result.text).toMatch(/campaigns on app app_demo/);
      expect(server.stderr()).not.toMatch(/Warning/);
    } finally {
      await client.close();
    }
  });

  it('never writes a credential to its log', () => {
    const { accessToken, apiKey } = sandbox.simulation.credentials;
    expect(server.stderr()).toMatch(/debug: POST \/mcp 200 in \d+ ms/); // the log did run at debug level
    for (const secret of [accessToken, apiKey, 'bob-token-1234']) expect(server.stderr()).not.toContain(secret.slice(0, 12));
  });
});

describe('app-management-mcp http: start-up and shutdown', () => {
  it('refuses to bind another address without allowed hosts and origins (exit 2)', async () => {
    const exit = await runNode([BIN, 'http', '--host', '0.0.0.0', '--port', '0']);
    expect(exit.code).toBe(2);
    expect(exit.stderr).toMatch(/--host 0\.0\.0\.0 serves other machines, so APPMGMT_HTTP_ALLOWED_HOSTS and APPMGMT_HTTP_ALLOWED_ORIGINS must name/);
  });

  it('serves the allowed host names on another address', async () => {
    const server = await startHttp(['--host', '0.0.0.0', '--sandbox'], {
      APPMGMT_HTTP_ALLOWED_HOSTS: 'mcp.example.test',
      APPMGMT_HTTP_ALLOWED_ORIGINS: 'https://chat.example.test',
    });
    try {
      const post = (host: string, origin?: string) =>
        raw(Number(server.mcp.port), 'POST', '/mcp', initialize, { host, ...(origin ? { origin } : {}), 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
      expect((await post('mcp.example.test', 'https://chat.example.test')).status).toBe(200);
      expect((await post('mcp.example.test', 'https://evil.example')).status).toBe(403);
      expect((await post('other.example.test')).status).toBe(403);
    } finally {
      await server.stop();
    }
  });

  it('warns that its own credentials are not used, and uses none of them', async () => {
    const sandbox = await startSandbox({ control: true });
    const server = await startHttp([], { APPMGMT_BASE_URL: sandbox.url, APPMGMT_ACCESS_TOKEN: sandbox.simulation.credentials.accessToken });
    try {
      expect(server.stderr()).toMatch(/APPMGMT_ACCESS_TOKEN, APPMGMT_API_KEY or APPMGMT_MONITORING_API_KEY is set, but over HTTP each request brings its own credentials/);
      const client = await connectHttp(server.mcp, '2025-11-25');
      const result = await client.callTool('list_ad_campaigns', { app_id: 'app_demo' });
      expect(result.text).toMatch(/^Set the Authorization: Bearer header/);
      expect(sandbox.requests).toHaveLength(0);
      await client.close();
    } finally {
      await server.stop();
      await sandbox.close();
    }
  });

  it('tells a 2025-era client over HTTP that it cannot approve when a person must', async () => {
    const server = await startHttp(['--sandbox'], { APPMGMT_REQUIRE_HUMAN_CONFIRMATION: 'true' });
    try {
      const legacy = await connectHttp(server.mcp, '2025-11-25', { capabilities: { elicitation: { form: {} } } });
      const refused = await legacy.callTool('create_ad_campaign', campaign('Needs a person'));
      expect(refused.text).toMatch(/over HTTP the server cannot send a form to a client on a 2025 protocol version \(there is no session\)\. Nothing was sent; use a client on protocol 2026-07-28, or this server over stdio\./);
      const modern = await connectHttp(server.mcp, '2026-07-28', { capabilities: { elicitation: { form: {} } } });
      const asked = modern.answerForms(() => ({ action: 'accept', content: { approve: true } }));
      await modern.callTool('create_ad_campaign', campaign('Needs a person'));
      expect((await modern.callTool('create_ad_campaign', { ...campaign('Needs a person'), confirm: true })).isError).toBe(false);
      expect(asked).toHaveLength(1);
      await Promise.all([legacy.close(), modern.close()]);
    } finally {
      await server.stop();
    }
  });

  it('uses the demo credentials with --sandbox when a request brings none', async () => {
    const server = await startHttp(['--sandbox']);
    try {
      const client = await connectHttp(server.mcp, '2026-07-28');
      const result = await client.callTool('list_ad_campaigns', { app_id: 'app_demo' });
      expect(result.isError).toBe(false);
      expect(result.text).toMatch(/^\[sandbox\] /);
      await client.close();
    } finally {
      await server.stop();
    }
  });

  it('drains on SIGTERM: new requests get 503, the call in flight answers, then it exits 0', async () => {
    const sandbox = await startSandbox({ control: true });
    const server = await startHttp([], { APPMGMT_BASE_URL: sandbox.url });
    const { accessToken } = sandbox.simulation.credentials;
    try {
      const client = await connectHttp(server.mcp, '2025-11-25', { headers: { authorization: `Bearer ${accessToken}` } });
      sandbox.script({ status: 200, hang: true });
      const inFlight = client.callTool('list_ad_campaigns', { app_id: 'app_demo' });
      while (sandbox.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      server.child.kill('SIGTERM');
      let late = await raw(Number(server.mcp.port), 'POST', '/mcp', initialize, { host: `127.0.0.1:${server.mcp.port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
      for (let i = 0; i < 50 && late.status !== 503; i++) {
        late = await raw(Number(server.mcp.port), 'POST', '/mcp', initialize, { host: `127.0.0.1:${server.mcp.port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
      }
      expect(late.status).toBe(503);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
      sandbox.release(); // the upstream answers (504): the call in flight gets its answer
      expect((await inFlight).text).toMatch(/^2 campaigns on app app_demo/); // after a retry of the 504
      expect(await server.exited).toBe(0);
      expect(server.child.signalCode).toBeNull();
      await client.close().catch(() => undefined);
    } finally {
      await server.stop();
      await sandbox.close();
    }
  });
});

describe('app-management-mcp http: slow clients', () => {
  it('cuts off a client that does not finish its headers', async () => {
    const neverBuilt = () => {
      throw new Error('never built');
    };
    const http = await serveInProcess(neverBuilt, new AbortController(), { maxBodyBytes: 1024, timeouts: { headersMs: 200, requestMs: 300 } });
    try {
      const socket = connect(http.port, '127.0.0.1');
      socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // and never the rest
      const answer = await closed(socket);
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      const body = connect(http.port, '127.0.0.1');
      body.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${http.port}\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"`); // headers, then a body that never ends
      expect(await closed(body)).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await http.drain();
    }
  });
});

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/**
 * One HTTP request with exactly these headers (fetch would not let a test set Host). Resolves once
 * the whole answer is in: the SDK keeps event-stream connections alive whatever the client asks.
 */
function raw(port: number, method: string, path: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const head = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n\r\n${body}`);
    let text = '';
    const done = () => {
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    };
    socket.on('data', (chunk: Buffer) => {
      text += chunk;
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1];
      if (end >= 0 && (length ? Buffer.byteLength(text.slice(end + 4)) >= Number(length) : text.endsWith('\r\n0\r\n\r\n'))) done();
    });
    socket.on('error', reject);
    socket.on('close', done);
  });
}

/** One HTTP request written line by line (so a header may repeat); resolves with all the server wrote before closing. */
function rawHead(port: number, head: string[], body: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  socket.write(`${[...head, `content-length: ${Buffer.byteLength(body)}`, 'connection: close'].join('\r\n')}\r\n\r\n${body}`);
  return closed(socket);
}

/** Everything the server wrote before it closed the connection; fails after 5 s. */
function closed(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('the server kept the connection open')), 5_000);
    socket.on('data', (chunk: Buffer) => (text += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}
