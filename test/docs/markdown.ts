import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

/** The blocks of one file under one heading, in order. */
export function blocksUnder(file: string, heading: string, lang?: string): FencedBlock[] {
  return fencedBlocks(file).filter((block) => block.heading === heading && (lang === undefined || block.lang === lang));
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
