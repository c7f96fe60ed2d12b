// An MCP client over stdio to a server the bench starts.
import { readFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** Starts `target` ({ command, args, env }) and connects to it (initialize included). */
export async function connectStdio(target) {
  const transport = new StdioClientTransport({ command: target.command, args: target.args, env: target.env, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

/** Resident set size of a live process in MiB, from /proc (Linux). */
export async function rssMiB(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  return Math.round((kib / 1024) * 10) / 10;
}
