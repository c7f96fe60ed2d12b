// Markdown tables of a bench run (printed by run.mjs, pasted into docs/performance.md).
import { OTEL_NAME } from './targets.mjs';

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
    'Budgets (tests in `test/budget.test.ts`): model-visible ≤ 3,500 for all tools, ≤ 550 for `create_ad_campaign`, ≤ 200 for every other tool; instructions ≤ 150.',
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
        ...(context[OTEL_NAME]
          ? [
              ['live, OpenTelemetry off (the tools/list session)', `${context.ours.rssAfterInitializeMiB} MiB`, ''],
              ['live, OpenTelemetry on (the same session)', `${context[OTEL_NAME].rssAfterInitializeMiB} MiB`, ''],
            ]
          : []),
        ...references.map((name) => [name, `${context[name].rssAfterInitializeMiB} MiB`, '']),
      ],
    ),
  );
  if (results.http) sections.push(...httpSections(results.http));
  if (results.versus) sections.push(...versusSections(results.versus));
  return sections.join('\n\n');
}

const ERA = { '2026-07-28': 'v2 SDK, 2026-07-28', '2025-11-25': 'v1 SDK, 2025-11-25' };
const STORE = { memory: 'in-process', redis: 'Redis' };
const mib = (value) => `${value} MiB`;
/** Milliseconds to 2 significant figures or whole: 3.4 ms, 94 ms, 1,460 ms. */
const msShort = (value) => `${value < 10 ? value.toFixed(1) : n(Math.round(value))} ms`;

/** Over HTTP (bench/http.mjs): latency and throughput with 1 and 50 clients, per store, beside stdio; memory. */
function httpSections(http) {
  const { settings, stdio, stores } = http;
  const measured = Object.entries(stores).filter(([, store]) => !store.skipped);
  const line = (transport, store, r) => [
    transport,
    store,
    ERA[r.era],
    r.clients,
    r.kind === 'read' ? 'read' : 'warning',
    msShort(r.p50),
    msShort(r.p99),
    n(r.callsPerSecond),
    msShort(r.cpuMsPerCall.server),
    r.errors ? `**${n(r.errors)}**` : '0',
  ];
  const rows = [
    ...stdio.map((r) => line('stdio', 'in-process', r)),
    ...measured.flatMap(([name, store]) => store.runs.map((r) => line('HTTP', STORE[name], r))),
  ];
  const all = [...stdio, ...measured.flatMap(([, store]) => store.runs)];
  const busiest = Math.max(...all.map((r) => r.machine.otherCores));
  const notes = [
    `Read: \`${http.read.name}\` ${JSON.stringify(http.read.arguments)}. Warning: \`${http.warn.name}\` without confirm, a new campaign name each call, so each call writes a new warning to the gate's store. ` +
      `HTTP is \`http --port 0 --sandbox\` (stateless Streamable HTTP: a new server per request); stdio is \`--sandbox\`. The clients run in the bench process on the same machine; ` +
      `1 client: ${n(settings.sequentialCalls)} sequential calls; ${settings.clients} clients: ${n(settings.concurrentCalls)} calls spread over them, each client calling back to back, after one untimed call from each. ` +
      'Server CPU: user + system time of the server process per call (all its threads).',
  ];
  const bursts = measured.map(([name, store]) => `${STORE[name]} ${msShort(store.coldBurst.read.max)} (read), ${msShort(store.coldBurst.warn.max)} (warning)`);
  if (bursts.length) notes.push(`Cold burst, ${settings.clients} clients' first calls at once (untimed above): slowest ${bursts.join('; ')}.`);
  const skipped = Object.entries(stores).filter(([, store]) => store.skipped);
  for (const [name, store] of skipped) notes.push(`${STORE[name]} store: ${store.skipped}`);
  if (busiest >= 0.25) notes.push(`Other work on this machine kept up to ${busiest} cores busy during some runs: those are slower than on an idle machine.`);
  const logged = measured.filter(([, store]) => store.serverLogWarnings);
  for (const [name, store] of logged) notes.push(`Server log (${STORE[name]} store): ${n(store.serverLogWarnings)} warning line(s), e.g. \`${store.serverLogSample[0]}\`.`);

  const memoryRows = measured.map(([name, { memory }]) => [
    STORE[name],
    mib(memory.afterStartup),
    `${mib(memory.afterCalls)} (${n(memory.calls)} calls, ${n(memory.warnings)} of them warnings)`,
    memory.redis ? `${n(memory.redis.after.keys)} keys, ${mib(memory.redis.before.usedMemoryMiB)} → ${mib(memory.redis.after.usedMemoryMiB)}` : '',
  ]);
  return [
    `**Over HTTP** (took ${Math.round(http.seconds)} s).`,
    table(['transport', 'gate store', 'client', 'clients', 'call', 'p50', 'p99', 'calls/s', 'server CPU/call', 'errors'], rows),
    notes.join(' '),
    `**Memory over HTTP** (RSS of the \`http --sandbox\` process after startup, and after ${n(settings.memoryCalls)} calls: the runs above, then reads and warnings in equal parts over the ${settings.clients} clients).`,
    ...(memoryRows.length ? [table(['gate store', 'after startup', 'after the calls', 'Redis'], memoryRows)] : []),
  ];
}

const met = (ok) => (ok ? 'met' : '**missed**');

/** Ours against the naive peer and the one-tool SDK server (bench/versus.mjs), with the issue-31 targets. */
export function versusSections(versus) {
  const { settings, cpuPerCallMs: cpu, callsPerSecond: rate, memory, ratios, targets } = versus;
  const span = (s, unit) => `${s.median}${unit} (${s.min}–${s.max})`;
  const rows = [
    ['server CPU per `tools/call`, HTTP, 1 client', span(cpu['ours http'], ' ms'), span(cpu['peer http'], ' ms'), span(cpu['floor http'], ' ms'), `${ratios.cpuPerCallOverPeer.toFixed(2)} / ${ratios.cpuPerCallHttp.toFixed(2)}`, '≤ 1.0 × peer', targets ? met(targets.cpuPerCallAtMost1xPeer) : ''],
    ...(cpu['floor, 28 tools, http'] ? [['the same, floor with 28 trivial tools', '', '', span(cpu['floor, 28 tools, http'], ' ms'), '', '', '']] : []),
    ['server CPU per `tools/call`, stdio, 1 client', span(cpu['ours stdio'], ' ms'), '', span(cpu['floor stdio'], ' ms'), `– / ${ratios.cpuPerCallStdio.toFixed(2)}`, '', ''],
    [`calls/s, ${settings.clients} clients, HTTP`, span(rate.ours, ''), span(rate.peer, ''), span(rate.floor, ''), `${ratios.throughputOverPeer.toFixed(2)} / ${ratios.throughput.toFixed(2)}`, '≥ 1.0 × peer', targets ? met(targets.throughputAtLeast1xPeer) : ''],
    [`RSS after ${n(settings.memoryCalls)} HTTP calls`, mib(memory.ours.rssMiB), mib(memory.peer.rssMiB), mib(memory.floor.rssMiB), `${ratios.memoryOverPeer.toFixed(2)} / ${ratios.memory.toFixed(2)}`, '≤ 1.2 × floor', targets ? met(targets.memoryAtMost1_2xFloor) : ''],
    ...(ratios.coldStartOverFloor === undefined
      ? []
      : [['cold start (table above), ours ÷ floor', '', '', '', `– / ${ratios.coldStartOverFloor.toFixed(2)}`, '≤ 0.5 × floor', targets ? met(targets.coldStartAtMostHalfTheFloor) : '']]),
  ];
  return [
    `**Ours against the naive peer and the floor** (took ${Math.round(versus.seconds)} s): the peer is \`bench/peer-server.mjs\`, the same SDK answering the same two upstream reads with fetch and nothing else; the floor is \`bench/floor-server.mjs\`, one trivial tool (\`echo\`); each builds a new server per request, as ours does. ` +
      `Ours and the peer answer \`${versus.ours.name}\` ${JSON.stringify(versus.ours.arguments)} from the sandbox in its own process (\`dist/index.js sandbox\`; two API requests); the floor calls nothing. ` +
      `Round robin: ${settings.rounds} rounds of ${n(settings.sequentialCalls)} sequential calls (CPU) and of ${n(settings.concurrentCalls)} calls over ${settings.clients} clients (throughput) per server; median round, (min–max). ` +
      'Server CPU: user + system time of the server process (from /proc) per call. The clients run in the bench process on the same machine.',
    table(['figure', 'ours', 'peer', 'floor', 'ours ÷ peer / ÷ floor', 'target', ''], rows),
  ];
}
