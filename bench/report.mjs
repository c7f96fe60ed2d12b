// Markdown tables of a bench run (printed by run.mjs, pasted into the README).

const row = (cells) => `| ${cells.join(' | ')} |`;
const table = (head, rows) => [row(head), row(head.map(() => '---')), ...rows.map(row)].join('\n');
const ms = (value) => `${value.toFixed(0)} ms`;
const n = (value) => value.toLocaleString('en-US');
const pct = (share) => `${Math.round(share * 100)}%`;

export function markdown(results) {
  const { coldStart, references, context, compactness, overhead, memory } = results;
  const sections = [];

  sections.push(
    `**Cold start**: spawn to the \`initialize\` answer over stdio, ${coldStart.runs} runs each, round robin.`,
    table(
      ['server', 'median', 'p10–p90', 'min–max', 'ours ÷ this'],
      Object.entries(coldStart.targets).map(([name, s]) => [
        name,
        ms(s.median),
        `${ms(s.p10)}–${ms(s.p90)}`,
        `${ms(s.min)}–${ms(s.max)}`,
        references.includes(name) ? (coldStart.targets.ours.median / s.median).toFixed(2) : '',
      ]),
    ),
  );

  sections.push(
    '**Context cost**: what a model reads of `tools/list` (each tool\'s name, title, description and input schema as JSON) plus the `initialize` instructions; output schemas and whole entries (with annotations) apart.',
    table(
      ['server', 'tools', 'model-visible o200k', 'cl100k', 'instructions o200k', 'total o200k', 'output schemas o200k', 'whole tools/list o200k'],
      Object.entries(context).map(([name, c]) => [
        name,
        c.tools,
        n(c.toolsTotal.o200k),
        n(c.toolsTotal.cl100k),
        n(c.instructions.o200k),
        n(c.total.o200k),
        n(c.outputSchemas.o200k),
        n(c.wholeEntries.o200k),
      ]),
    ),
    'Budgets (tests in `test/budget.test.ts`): model-visible ≤ 4,000 for all tools, ≤ 700 for `create_ad_campaign`, ≤ 200 for every other tool; instructions ≤ 150.',
    table(
      ['our tool', 'o200k', 'cl100k', 'output schema o200k'],
      context.ours.perTool.map((t) => [`\`${t.name}\``, n(t.o200k), n(t.cl100k), n(t.outputSchema.o200k)]),
    ),
  );

  sections.push(
    '**Result compactness**: what the model reads of a result (text + structured JSON) against the raw API answer.',
    table(
      ['tool', 'answer', 'raw o200k', 'result o200k', 'result cl100k', 'share'],
      compactness.map((r) => [`\`${r.tool}\``, r.fixture, n(r.raw.o200k), n(r.result.o200k), n(r.result.cl100k), pct(r.share)]),
    ),
  );

  sections.push(
    `**Per call** (\`${overhead.tool}\`, ${n(overhead.calls)} sequential calls, sandbox in its own process on 127.0.0.1).`,
    table(
      ['path', 'median', 'p10–p90', 'calls/s'],
      [
        ['MCP client → our server (stdio) → sandbox', `${overhead.mcp.median} ms`, `${overhead.mcp.p10}–${overhead.mcp.p90} ms`, n(overhead.callsPerSecond)],
        ['fetch → sandbox, same request', `${overhead.direct.median} ms`, `${overhead.direct.p10}–${overhead.direct.p90} ms`, n(overhead.directPerSecond)],
      ],
    ),
    `Overhead of the MCP layer: ${overhead.overheadMedianMs} ms per call (median).`,
  );

  sections.push(
    '**Memory** (RSS of the server process).',
    table(
      ['mode', 'after initialize', 'after the calls'],
      [
        ['`--sandbox` (server and sandbox in one process)', `${memory.afterInitialize} MiB`, `${memory.afterCalls} MiB (${n(memory.calls)} calls)`],
        ['live (API in another process)', `${overhead.rssMiB.afterInitialize} MiB`, `${overhead.rssMiB.afterCalls} MiB (${n(overhead.rssMiB.calls)} calls)`],
        ...references.map((name) => [name, `${context[name].rssAfterInitializeMiB} MiB`, '']),
      ],
    ),
  );
  return sections.join('\n\n');
}
