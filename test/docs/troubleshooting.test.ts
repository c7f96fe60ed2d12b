import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ENV_VARS } from '../../src/config.js';
import { unfilledPlaceholder } from '../../src/placeholder.js';
import { TOOLS } from '../../src/tools/index.js';
import { cleanEnv } from '../process.js';
import { CLONE_PLACEHOLDER, ROOT, shellCommands, testedBlocks } from './markdown.js';

// docs/troubleshooting.md: the commands a person runs when no tools show up, run as written (the
// clone's real path in place of /absolute/path/to/…), and the facts it states about start-up.
const DOC = 'docs/troubleshooting.md';
const doc = readFileSync(`${ROOT}${DOC}`, 'utf8');
const commands = testedBlocks(DOC, (block) => block.testedBy === 'test/docs/troubleshooting.test.ts').flatMap((block) => shellCommands(block.text.replaceAll(CLONE_PLACEHOLDER, ROOT.replace(/\/$/, ''))));

function sh(command: string, cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('docs/troubleshooting.md', () => {
  it('has the two commands to run by hand', () => {
    expect(commands).toEqual([`node ${ROOT}dist/index.js --help`, 'npx mcp-inspector --cli --method tools/list -- node dist/index.js --sandbox']);
  });

  it("runs the client's command from any folder: --help prints every variable and exits 0", async () => {
    const { code, stdout } = await sh(commands[0]!, tmpdir());
    expect(code).toBe(0);
    for (const name of Object.keys(ENV_VARS)) expect(stdout).toContain(name);
  });

  it('lists every tool through the MCP Inspector from the clone', async () => {
    const { code, stdout, stderr } = await sh(commands[1]!, ROOT);
    expect(code, stderr).toBe(0);
    for (const tool of TOOLS) expect(stdout).toContain(`"${tool.name}"`);
  }, 60_000);

  it('says what a misspelt variable prints: one prefixed line naming the right one, and exit 2', async () => {
    expect(doc).toContain('each starting with `app-management-mcp:`');
    const { code, stderr } = await sh(`node ${ROOT}dist/index.js`, ROOT, { appmgmt_read_only: 'true' });
    expect(code).toBe(2);
    expect(stderr).toBe('app-management-mcp: Unknown variable appmgmt_read_only; did you mean APPMGMT_READ_ONLY (names are upper case)?\n');
  });

  it('states the placeholder rule the server applies, with examples that hold, and the line it prints', async () => {
    const paragraph = doc.slice(doc.indexOf('- `… is still ${APPMGMT_APP_ID}'), doc.indexOf('- `--app-id` and `APPMGMT_APP_ID`'));
    const quoted = (from: string, to: string) => [...paragraph.slice(paragraph.indexOf(from), paragraph.indexOf(to)).matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    const refused = quoted('The rule', 'A secret with');
    const taken = quoted('A secret with', 'is taken as it is');
    const examples = ['${NAME}', '${env:NAME}', '${input:id}', '${user_config.name}', '${{ secrets.NAME }}', '$NAME', '%NAME%', '$HOME/audit.jsonl'];
    expect(refused).toEqual(expect.arrayContaining(examples));
    for (const value of examples) expect(unfilledPlaceholder('APPMGMT_X', value), value).toBeDefined();
    expect(taken).toEqual(['$', '%', 'ab$cd', '$2b$12$…', '$abc', '%41']);
    for (const value of ['ab$cd', '$2b$12$R9h/cIPz0gi', '$abc', 'p%41%42']) expect(unfilledPlaceholder('APPMGMT_X', value), value).toBeUndefined();

    const { code, stderr } = await sh(`node ${ROOT}dist/index.js`, ROOT, { APPMGMT_APP_ID: '${APPMGMT_APP_ID}' });
    expect(code).toBe(2);
    expect(stderr).toContain('APPMGMT_APP_ID is still ${APPMGMT_APP_ID}: the MCP client did not fill it');
    expect(paragraph).toContain('`… is still ${APPMGMT_APP_ID}: the MCP client did not fill it`');
  });

  it('counts the read tools that read-only mode offers', () => {
    const reads = TOOLS.filter((tool) => tool.annotations.readOnlyHint).length;
    expect(reads).toBe(12);
    expect(doc.replace(/\s+/g, ' ')).toContain('offers only the twelve read tools');
  });
});
