/**
 * Every benchmark figure in the README comes from the committed results in bench/latest/: the README's bench
 * section is exactly what bench/readme-figures.ts generates from them, and the rest of that chapter states no
 * figure of its own.
 */
import * as fs from 'fs';
import * as path from 'path';
import { BEGIN, currentSection, END, LATEST, readmeFigures } from '../../bench/readme-figures';

const README = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');

describe('README benchmark figures', () => {
  test('the bench section equals what bench/readme-figures.ts generates from bench/latest/*.json (npx tsx bench/readme-figures.ts --write)', () => {
    expect(currentSection(README)).toBe(readmeFigures());
  });

  test('every `npm run bench` results file in bench/latest/ (*-results.json) is shown, with the load average of its runs', () => {
    const generated = readmeFigures();
    const files = fs.readdirSync(LATEST).filter((f) => f.endsWith('-results.json'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const f of files) expect(generated).toContain(`bench/latest/${f}`);
    expect(generated.match(/load average|load avg/g)?.length).toBeGreaterThanOrEqual(files.length);
  });

  test('outside the generated section, the Benchmarks chapter states no measured figure', () => {
    const chapter = README.slice(README.indexOf('## Benchmarks'), README.indexOf('\n## ', README.indexOf('## Benchmarks') + 1));
    const prose = chapter.replace(currentSection(README) ?? '', '');
    expect(prose).toContain('## Benchmarks');
    expect(chapter).toContain(BEGIN);
    expect(chapter).toContain(END);
    // seconds, MiB, MB/s, ratios and percentages measured: only the generated section may hold them
    const figures = prose.match(/\b\d+(\.\d+)?\s?(s|ms|MiB|MB\/s|CPU s|×|x Go|%)(?![\w-])/g) ?? [];
    expect(figures.filter((f) => !/^30 s$/.test(f))).toStrictEqual([]);
  });
});
