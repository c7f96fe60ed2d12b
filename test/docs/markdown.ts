import { readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

/** The repository root, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where a client snippet names the clone; tests put the real root there. */
export const CLONE_PLACEHOLDER = '/absolute/path/to/app-management-mcp';

/** README.md and every docs/*.md, as paths from the root. */
export function markdownFiles(): string[] {
  return ['README.md', ...readdirSync(`${ROOT}docs`).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
}

export interface FencedBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The text between the fences, without the fence's indentation. */
  text: string;
  /** The test file named by `<!-- tested-by: … -->` on the line right above the fence, if any. */
  testedBy?: string;
  /** The nearest heading above it. */
  heading: string;
}

const TESTED_BY = /^<!--\s*tested-by:\s*(\S+)\s*-->$/;

/** Every fenced code block of a markdown file (``` or ~~~, indented in a list or not). */
export function fencedBlocks(file: string): FencedBlock[] {
  const lines = readFileSync(`${ROOT}${file}`, 'utf8').split('\n');
  const blocks: FencedBlock[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
    const open = /^(\s*)(`{3,}|~{3,})([\w-]*)\s*$/.exec(line);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.trim().startsWith(fence!)) body.push(lines[j++]!.slice(indent!.length));
    const testedBy = TESTED_BY.exec(lines[i - 1]?.trim() ?? '')?.[1];
    blocks.push({ file, line: i + 1, lang: lang ?? '', text: body.join('\n'), heading, ...(testedBy ? { testedBy } : {}) });
    i = j;
  }
  return blocks;
}

/** The blocks of one file under one heading, in order; each is taken (see `take`). */
export function blocksUnder(file: string, heading: string, lang?: string): FencedBlock[] {
  return take(fencedBlocks(file).filter((block) => block.heading === heading && (lang === undefined || block.lang === lang)));
}

/** The blocks of `file` that `pick` selects, in order; each is taken (see `take`). */
export function testedBlocks(file: string, pick: (block: FencedBlock) => boolean): FencedBlock[] {
  return take(fencedBlocks(file).filter(pick));
}

/**
 * The blocks this test file took to run or check, as `file:line`. `<!-- tested-by: … -->` means the
 * named test takes the block: test/docs/blocks-taken.ts fails a test file that ran in full without
 * taking every block that names it.
 */
export const taken = new Set<string>();

/** The running test file, as a path from the root (test/…), as markers name it. */
export function currentTestFile(): string | undefined {
  const path = expect.getState().testPath;
  return path ? relative(ROOT, path) : undefined;
}

/** Hands `blocks` to the test that reads them: those whose marker names the running test file count as taken. */
export function take<T extends { file: string; line: number; testedBy?: string }>(blocks: T[]): T[] {
  const test = currentTestFile();
  for (const block of blocks) if (block.testedBy === test) taken.add(`${block.file}:${block.line}`);
  return blocks;
}

/** The blocks of README.md and docs/ whose marker names `test` and that are not in `read`, as `file:line`. */
export function untaken(test: string, read: ReadonlySet<string>): string[] {
  return markdownFiles()
    .flatMap(fencedBlocks)
    .filter((block) => block.testedBy === test && !read.has(`${block.file}:${block.line}`))
    .map((block) => `${block.file}:${block.line}`);
}

/**
 * The commands of a shell block: comments dropped, backslash continuations joined, one entry per
 * line that runs something.
 */
export function shellCommands(text: string): string[] {
  return text
    .replace(/\s*\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));
}

/** GitHub's anchor for a heading: lower case, punctuation but - and _ dropped, spaces to dashes. */
export function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * The numbers of the one sentence in `file` that `pattern` matches, commas dropped: each capture
 * group read as a number, so a test takes its figures from the doc that cites it and the two cannot
 * drift. Throws when the doc no longer says it (the pattern is matched across line breaks).
 */
export function docFigures(file: string, pattern: RegExp): number[] {
  const prose = readFileSync(`${ROOT}${file}`, 'utf8').replace(/\s+/g, ' ');
  const match = pattern.exec(prose);
  if (!match) throw new Error(`${file} no longer says ${pattern}: update the test and the doc together`);
  return match.slice(1).map((figure) => {
    const value = Number((WORDS[figure!] ?? figure!).replaceAll(',', ''));
    if (!Number.isFinite(value)) throw new Error(`${file}: "${figure}" in ${pattern} is not a number`);
    return value;
  });
}

/** Small numbers as the docs spell them. */
const WORDS: Record<string, string> = { one: '1', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9', ten: '10' };
