import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import vitestConfig from '../../vitest.config.js';
import { anchorOf, fencedBlocks, markdownFiles, ROOT, untaken } from './markdown.js';

// The convention that keeps README.md and docs/ true: every fenced block is preceded by
// `<!-- tested-by: test/… -->`, naming a test that exists and takes that very block when it runs
// (test/docs/blocks-taken.ts fails it otherwise), and every relative link lands on a file and
// heading that exist.

const blocks = markdownFiles().flatMap(fencedBlocks);

describe('the documentation', () => {
  it('has README.md and docs/*.md with fenced blocks to check', () => {
    expect(markdownFiles()).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/team.md']));
    expect(blocks.length).toBeGreaterThan(5);
  });

  it('names a test right above every fenced block', () => {
    const untested = blocks.filter((block) => !block.testedBy).map((block) => `${block.file}:${block.line}`);
    expect(untested, 'add <!-- tested-by: test/… --> on the line above each').toEqual([]);
  });

  it('names only test files that exist', () => {
    const wrong = blocks
      .filter((block) => block.testedBy && (!/^test\/.+\.test\.ts$/.test(block.testedBy) || !existsSync(`${ROOT}${block.testedBy}`)))
      .map((block) => `${block.file}:${block.line}: ${block.testedBy} does not exist`);
    expect(wrong).toEqual([]);
  });

  it('has every named test take its blocks when it runs, or fail', () => {
    // The check runs after each test file, from the setup file every test file loads.
    expect([vitestConfig.test?.setupFiles ?? []].flat()).toContain('test/docs/blocks-taken.ts');
    const marked = blocks.filter((block) => block.testedBy === 'test/docs/team.test.ts').map((block) => `${block.file}:${block.line}`);
    expect(marked.length).toBeGreaterThan(1);
    // A run that took none of its blocks, or all but one, is reported block by block; one that took them all is not.
    expect(untaken('test/docs/team.test.ts', new Set())).toEqual(marked);
    expect(untaken('test/docs/team.test.ts', new Set(marked.slice(1)))).toEqual(marked.slice(0, 1));
    expect(untaken('test/docs/team.test.ts', new Set(marked))).toEqual([]);
  });

  it('names only npm scripts that package.json has, and test and source files that exist', () => {
    const scripts = Object.keys(JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).scripts);
    const missing: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(`${ROOT}${file}`, 'utf8');
      for (const [, script] of text.matchAll(/\bnpm run ([a-z][\w:-]*)/g)) if (!scripts.includes(script!)) missing.push(`${file}: npm run ${script}`);
      for (const [path] of text.matchAll(/\b(?:test|src|scripts|examples|bench)\/[\w./-]*\.(?:ts|mjs|js|json)\b/g)) {
        // An ignored output (bench/out/…) is named as such; a fresh clone has the rest.
        const ignored = spawnSync('git', ['check-ignore', '-q', path], { cwd: ROOT }).status === 0;
        if (!ignored && !existsSync(`${ROOT}${path}`)) missing.push(`${file}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(`${ROOT}${file}`, 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = path ? normalize(`${dirname(file)}/${path}`) : file;
        if (!existsSync(`${ROOT}${resolved}`)) {
          broken.push(`${file}: ${target} (no ${resolved})`);
          continue;
        }
        if (anchor && resolved.endsWith('.md')) {
          const headings = readFileSync(`${ROOT}${resolved}`, 'utf8').split('\n').filter((line) => /^#{1,6} /.test(line));
          if (!headings.some((line) => anchorOf(line.replace(/^#+ /, '')) === anchor)) broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
