import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../src/auth/discovery.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { cleanEnv } from '../process.js';
import { blocksUnder, ROOT } from './markdown.js';

// docs/connectors.md: the command that turns OAuth on, run from the clone as written, with a free
// port for 8080 and this test's sandbox for https://your-service.example.
const DOC = 'docs/connectors.md';
const doc = readFileSync(`${ROOT}${DOC}`, 'utf8');

describe('docs/connectors.md', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  it('turns OAuth on with the command it gives, and the server then publishes its sign-in for the issuer named', async () => {
    const [block] = blocksUnder(DOC, 'Turn it on', 'sh');
    const command = block!.text.replace('--port 8080', '--port 0').replace('https://your-service.example', sandbox.url);
    const child = spawn('bash', ['-c', command], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    try {
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk;
          const found = /serving MCP on (http:\/\/[^/\s]+)\/mcp/.exec(stderr);
          if (found && stderr.includes('OAuth sign-in on')) resolve(found[1]!);
        });
        child.on('close', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
      });
      expect(stderr).toContain('OAuth sign-in on: clients connect to https://mcp.example.com/mcp');
      expect(stderr).not.toContain('APPMGMT_OAUTH_SEAL_KEYS is not set');
      const metadata = (await (await fetch(`${url}${PATHS.resourceMetadata}`)).json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({ resource: 'https://mcp.example.com/mcp', authorization_servers: ['https://mcp.example.com'] });
      const challenge = await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(challenge.status).toBe(401);
      expect(challenge.headers.get('www-authenticate')).toContain('resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"');
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
    }
  });

  it('names the paths the server serves', () => {
    expect(doc).toContain(`https://mcp.example.com${PATHS.disconnect}`);
    expect(doc).toContain('X-Appmgmt-Access-Token');
    expect(doc).toMatch(/could not be tried from here/);
  });
});
