import { spawn, spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { TOOLS } from '../src/tools/index.js';
import { BIN, cleanEnv } from './process.js';

// These tests run the built bundle as a client would; `npm test` builds it first.

describe('the built server over stdio', () => {
  it('lists the tools and calls one against the in-process sandbox', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--sandbox'], env: cleanEnv(), stderr: 'pipe' });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(TOOLS.length);
      const result = await client.callTool({ name: 'push_app_to_repo', arguments: { app_id: 'app_demo' } });
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
      expect(text).toMatch(/^\[sandbox\] /);
      expect(text).toContain('app_demo');
    } finally {
      await client.close();
    }
  });

  it('writes nothing but JSON-RPC messages to stdout', async () => {
    const child = spawn(process.execPath, [BIN, '--sandbox'], { env: { ...cleanEnv(), APPMGMT_LOG_LEVEL: 'debug' } });
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_scheduling_job', arguments: { app_id: 'app_demo', job_id: 'job_empty' } } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'push_app_to_repo', arguments: { app_id: 42 } } },
    ];
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    for (const message of messages) child.stdin.write(`${JSON.stringify(message)}\n`);
    await new Promise<void>((resolve) => {
      child.stdout.on('data', () => {
        if (stdout.split('\n').filter(Boolean).length === 4) resolve();
      });
    });
    child.stdin.end();
    await new Promise((resolve) => child.on('close', resolve));
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines.length).toBe(4);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  });

  it('stops with exit code 2 and a did-you-mean line for an unknown variable', () => {
    const run = spawnSync(process.execPath, [BIN, '--sandbox'], { env: { ...cleanEnv(), appmgmt_read_only: 'true' }, encoding: 'utf8', input: '' });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      'app-management-mcp: Unknown variable appmgmt_read_only; did you mean APPMGMT_READ_ONLY (names are upper case)?',
    ]);
  });

  it('stops with exit code 2 and one clear line for a malformed URL', () => {
    const run = spawnSync(process.execPath, [BIN], { env: { ...cleanEnv(), APPMGMT_BASE_URL: 'api.example.com' }, encoding: 'utf8', input: '' });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      'app-management-mcp: APPMGMT_BASE_URL must be an http(s) URL such as https://api.example.com',
    ]);
  });

  it('starts without credentials and answers each tool with the variable to set', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN], env: { ...cleanEnv(), APPMGMT_BASE_URL: 'http://127.0.0.1:9' }, stderr: 'pipe' });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'get_scheduling_job', arguments: { app_id: 'a', job_id: 'j' } });
      expect(result.isError).toBe(true);
      expect((result.content as Array<{ text: string }>)[0]?.text).toMatch(/Set APPMGMT_API_KEY/);
    } finally {
      await client.close();
    }
  });
});
