import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT } from './markdown.js';

// docs/clients.md names the version of each client the tests run; those are the versions the tests
// install (test/clients/package.json pins them exactly; the Inspector is a root dev dependency).
const DOC = readFileSync(`${ROOT}docs/clients.md`, 'utf8').replace(/\s+/g, ' ');
const pinned = JSON.parse(readFileSync(`${ROOT}test/clients/package.json`, 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const lock = JSON.parse(readFileSync(`${ROOT}package-lock.json`, 'utf8')) as { packages: Record<string, { version: string }> };
const version = (name: string) => pinned.dependencies[name] ?? pinned.devDependencies[name];

describe('docs/clients.md', () => {
  it('names the versions of the terminal clients the tests install', () => {
    const named = /\(Claude Code (\S+), Gemini CLI (\S+), Qwen Code (\S+), Codex CLI (\S+), installed from npm into `test\/clients`\)/.exec(DOC);
    expect(named?.slice(1)).toEqual([version('@anthropic-ai/claude-code'), version('@google/gemini-cli'), version('@qwen-code/qwen-code'), version('@openai/codex')]);
  });

  it('names the versions of the client libraries and the Inspector the tests drive', () => {
    expect(DOC).toContain(`| AI SDK MCP client (\`ai\` ${version('ai')}, \`@ai-sdk/mcp\` ${version('@ai-sdk/mcp')}) |`);
    expect(DOC).toContain(`| OpenAI Agents SDK (\`@openai/agents\` ${version('@openai/agents')}), strict mode |`);
    expect(DOC).toContain(`| Google genai \`mcpToTool\` (\`@google/genai\` ${version('@google/genai')}) |`);
    const inspector = lock.packages['node_modules/@modelcontextprotocol/inspector']!.version;
    expect(DOC).toContain(`| MCP Inspector CLI ${inspector.split('.').slice(0, 2).join('.')} (\`test/ecosystem/inspector.test.ts\`) |`);
  });
});
