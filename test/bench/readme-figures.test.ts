/**
 * Every benchmark figure in the README comes from the committed results in bench/latest/: the README's bench
 * section is exactly what bench/readme-figures.ts generates from them, and the rest of that chapter states no
 * figure of its own.
 */
import * as fs from 'fs';
import * as path from 'path';
import { CHAOS_BEGIN, CHAOS_END, chaosFigures, currentChaosSection } from '../../bench/chaos-figures';
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

  test('the chaos section equals what bench/chaos-figures.ts generates from bench/latest/chaos-*.json (npx tsx bench/readme-figures.ts --write)', () => {
    expect(currentChaosSection(README)).toBe(chaosFigures(LATEST));
  });

  test('every chaos report in bench/latest/ is shown: failover time, write outage p50 / max per fault kind, RPO without synchronous', () => {
    const generated = chaosFigures(LATEST);
    const files = fs.readdirSync(LATEST).filter((f) => /^chaos-.*\.json$/.test(f));
    expect(files).toEqual(expect.arrayContaining(['chaos-sync.json', 'chaos-async.json']));
    for (const f of files) expect(generated).toContain(`bench/latest/${f}`);
    expect(generated).toContain('failover s p50 / max');
    expect(generated).toContain('write outage s p50 / max');
    expect(generated).toMatch(/RPO without `synchronous`, per failover \(\d+\)/);
  });

  test('outside the generated section, the chaos chapter states no measured figure', () => {
    const start = README.indexOf('## SampleDB under faults');
    const chapter = README.slice(start, README.indexOf('\n## ', start + 1));
    expect(chapter).toContain(CHAOS_BEGIN);
    expect(chapter).toContain(CHAOS_END);
    const prose = chapter.replace(currentChaosSection(README) ?? '', '');
    // measured seconds, rows and write counts only in the generated section (bounds and settings are stated: 120 s, 5 s, 10 s, 30 s, 2 s, 1 s)
    const figures = prose.match(/\b\d+(\.\d+)?\s?(s|ms|rows|acknowledged writes|faults|min)(?![\w-])/g) ?? [];
    expect(figures.filter((f) => !/^(120|60|40|30|28|10|5|3|2|1) s$|^(20|5|7|1) faults$/.test(f))).toStrictEqual([]);
  });
});
