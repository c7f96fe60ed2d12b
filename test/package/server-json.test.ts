import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ENV_VARS, type EnvName } from '../../src/config.js';
import { ENV_DETAILS } from '../../src/config-reference.js';
import { CREDENTIAL_HEADERS } from '../../src/transports/http.js';
import { SERVER_VERSION } from '../../src/version.js';
import { ROOT } from '../docs/markdown.js';

// server.json, the entry `mcp-publisher publish` sends to the MCP Registry: valid against the
// registry's published schema, and saying what package.json, manifest.json, the configuration
// reference (src/config.ts and src/config-reference.ts) and the http transport's headers say, so
// that a change to any of them fails here until the entry follows.

/**
 * https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json, the current schema
 * version, copied byte for byte from modelcontextprotocol/static (MIT; fixtures/README.md).
 */
const SCHEMA_FILE = `${ROOT}test/package/fixtures/server.schema.json`;
const SCHEMA_SHA256 = '3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0';

interface Input {
  name?: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: string;
  default?: string;
  value?: string;
  placeholder?: string;
  variables?: Record<string, Input>;
}

interface ServerJson {
  $schema: string;
  name: string;
  title: string;
  version: string;
  description: string;
  packages: Array<{ registryType: string; registryBaseUrl: string; identifier: string; version: string; runtimeHint: string; transport: { type: string }; environmentVariables: Input[] }>;
  remotes: Array<{ type: string; url: string; variables?: Record<string, Input>; headers: Input[] }>;
}

interface UserOption {
  type: string;
  required?: boolean;
  sensitive?: boolean;
  default?: string | boolean;
}

const read = <T>(path: string) => JSON.parse(readFileSync(`${ROOT}${path}`, 'utf8')) as T;
const entry = read<ServerJson>('server.json');
const pkg = read<{ name: string; version: string; mcpName: string; bin: Record<string, string> }>('package.json');
const manifest = read<{ version: string; display_name: string; server: { mcp_config: { env: Record<string, string> } }; user_config: Record<string, UserOption> }>('manifest.json');

/** The manifest's user setting that fills `variable` (`${user_config.key}`). */
function userOption(variable: string): UserOption {
  const key = /^\$\{user_config\.(\w+)\}$/.exec(manifest.server.mcp_config.env[variable] ?? '')?.[1];
  const option = key ? manifest.user_config[key] : undefined;
  if (!option) throw new Error(`manifest.json fills ${variable} from no user_config setting`);
  return option;
}

describe('server.json', () => {
  it("is valid against the MCP Registry's published schema", () => {
    const bytes = readFileSync(SCHEMA_FILE);
    expect(createHash('sha256').update(bytes).digest('hex'), 'the vendored schema was changed').toBe(SCHEMA_SHA256);
    const schema = JSON.parse(bytes.toString('utf8')) as { $id: string };
    expect(entry.$schema).toBe(schema.$id);
    // `example` is the schema's own annotation (OpenAPI's); every other keyword stays strict.
    const ajv = new Ajv({ allErrors: true });
    ajv.addVocabulary(['example']);
    formats.default(ajv);
    const validate = ajv.compile(schema);
    validate(entry);
    expect((validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`)).toEqual([]);
  });

  it('rejects what the registry rejects, so that the check above can fail', () => {
    const ajv = new Ajv({ allErrors: true });
    ajv.addVocabulary(['example']);
    formats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);
    expect(validate({ ...entry, description: 'x'.repeat(101) })).toBe(false);
    expect(validate({ ...entry, name: 'app-management-mcp' })).toBe(false);
    expect(validate({ ...entry, remotes: [{ ...entry.remotes[0], url: 'mcp.example.com/mcp' }] })).toBe(false);
  });

  it("is named as package.json's mcpName, titled as the desktop extension, and carries one exact version everywhere", () => {
    expect(entry.name).toBe(pkg.mcpName);
    expect(entry.title).toBe(manifest.display_name);
    expect(entry.name).toMatch(/^io\.github\.[\w-]+\/app-management-mcp$/);
    expect([entry.version, entry.packages[0]?.version, manifest.version, SERVER_VERSION]).toEqual(Array(4).fill(pkg.version));
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
  });

  it('offers the npm package, run with npx over stdio, under the command its name starts', () => {
    expect(entry.packages).toHaveLength(1);
    const [npm] = entry.packages;
    expect(npm).toMatchObject({ registryType: 'npm', registryBaseUrl: 'https://registry.npmjs.org', identifier: pkg.name, runtimeHint: 'npx', transport: { type: 'stdio' } });
    // `npx app-management-mcp` runs the bin named after the package.
    expect(Object.keys(pkg.bin)).toEqual([pkg.name]);
  });

  it('asks for the settings manifest.json asks for, described and flagged as the configuration reference does', () => {
    const variables = entry.packages[0]!.environmentVariables;
    expect(variables.map((variable) => variable.name)).toEqual(Object.keys(manifest.server.mcp_config.env));
    for (const variable of variables) {
      const name = variable.name as EnvName;
      const option = userOption(name);
      expect(variable.description, name).toBe(ENV_VARS[name]);
      expect(Boolean(variable.isSecret), `${name} isSecret`).toBe(Boolean(ENV_DETAILS[name]?.secret));
      expect(Boolean(option.sensitive), `${name} sensitive in manifest.json`).toBe(Boolean(ENV_DETAILS[name]?.secret));
      expect(Boolean(variable.isRequired), `${name} isRequired`).toBe(option.required === true);
      expect(variable.format === 'boolean', `${name} format`).toBe(option.type === 'boolean');
      const given = option.default === undefined || option.default === '' ? undefined : String(option.default);
      expect(variable.default, `${name} default`).toBe(given);
      if (variable.isSecret) expect(variable.value ?? variable.default ?? variable.placeholder, `${name} carries no value`).toBeUndefined();
    }
  });

  it('offers Streamable HTTP with every credential header the http transport reads, each a secret', () => {
    expect(entry.remotes).toHaveLength(1);
    const [remote] = entry.remotes;
    expect(remote!.type).toBe('streamable-http');
    const placeholders = [...remote!.url.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    expect(placeholders).toEqual(Object.keys(remote!.variables ?? {}));
    expect(new URL(remote!.url.replace(/\{\w+\}/g, 'mcp.example.com')).pathname).toBe('/mcp');

    expect(remote!.headers.map((header) => header.name!.toLowerCase())).toEqual(Object.values(CREDENTIAL_HEADERS));
    for (const header of remote!.headers) expect(header.isSecret, header.name).toBe(true);
    const authorization = remote!.headers.find((header) => header.name === 'Authorization')!;
    const token = /^Bearer \{(\w+)\}$/.exec(authorization.value ?? '')?.[1];
    expect(token, 'Authorization is "Bearer {variable}"').toBeDefined();
    expect(authorization.variables?.[token!]).toMatchObject({ isRequired: true, isSecret: true });
  });
});
