import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENV_VARS } from '../src/config.js';
import { TOOLS } from '../src/tools/index.js';
import { SERVER_VERSION } from '../src/version.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}/manifest.json`, 'utf8'));
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));

describe('manifest.json', () => {
  it('passes mcpb validate (offline)', () => {
    const out = execFileSync(`${root}/node_modules/.bin/mcpb`, ['validate', 'manifest.json'], { cwd: root, encoding: 'utf8' });
    expect(out).toMatch(/validation passes/i);
  });

  it("lists exactly the server's tools, in order", () => {
    expect(manifest.tools.map((tool: { name: string }) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
  });

  it('marks every secret sensitive and maps user_config only to known variables', () => {
    for (const [key, option] of Object.entries<{ sensitive?: boolean }>(manifest.user_config)) {
      expect(Boolean(option.sensitive), key).toBe(/token|key/.test(key));
    }
    for (const name of Object.keys(manifest.server.mcp_config.env)) expect(Object.keys(ENV_VARS)).toContain(name);
  });

  it('carries the same version as package.json and the server', () => {
    expect(manifest.version).toBe(pkg.version);
    expect(SERVER_VERSION).toBe(pkg.version);
  });
});
