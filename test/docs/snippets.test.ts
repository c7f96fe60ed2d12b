import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorOf, fencedBlocks, markdownFiles, ROOT } from './markdown.js';

// The convention that keeps README.md and docs/ true: every fenced block is preceded by
// `<!-- tested-by: test/… -->`, naming a test that exists and reads that very file, and every
// relative link lands on a file and heading that exist.

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

  it('names only test files that exist and read the markdown file they test', () => {
    const wrong = blocks
      .filter((block) => block.testedBy)
      .flatMap((block) => {
        const path = `${ROOT}${block.testedBy}`;
        if (!/^test\/.+\.test\.ts$/.test(block.testedBy!) || !existsSync(path)) return [`${block.file}:${block.line}: ${block.testedBy} does not exist`];
        return readFileSync(path, 'utf8').includes(block.file) ? [] : [`${block.file}:${block.line}: ${block.testedBy} never mentions ${block.file}`];
      });
    expect(wrong).toEqual([]);
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
