/**
 * Every benchmark figure in the docs comes from the committed results in bench/latest/: the bench section of
 * docs/benchmarks.md and the chaos section of docs/chaos.md are exactly what bench/readme-figures.ts generates from
 * them, and the rest of those pages states no measured figure of its own.
 */
import * as fs from 'fs';
import { CHAOS_BEGIN, CHAOS_END, chaosFigures, currentChaosSection } from '../../bench/chaos-figures';
import { BEGIN, BENCH_PAGE, CHAOS_PAGE, currentSection, END, LATEST, readmeFigures } from '../../bench/readme-figures';

const BENCH = fs.readFileSync(BENCH_PAGE, 'utf8');
const CHAOS = fs.readFileSync(CHAOS_PAGE, 'utf8');

describe('the benchmark and chaos figures of docs/', () => {
  test('docs/benchmarks.md: the bench section equals what bench/readme-figures.ts generates from bench/latest/*.json (npx tsx bench/readme-figures.ts --write)', () => {
    expect(currentSection(BENCH)).toBe(readmeFigures());
  });

  test('every `npm run bench` results file in bench/latest/ (*-results.json) is shown, with the load average of its runs', () => {
    const generated = readmeFigures();
    const files = fs.readdirSync(LATEST).filter((f) => f.endsWith('-results.json'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const f of files) expect(generated).toContain(`bench/latest/${f}`);
    expect(generated.match(/load average|load avg/g)?.length).toBeGreaterThanOrEqual(files.length);
  });

  test('outside the generated section, docs/benchmarks.md states no measured figure', () => {
    const chapter = BENCH;
    const prose = chapter.replace(currentSection(BENCH) ?? '', '');
    expect(prose).toContain('# Benchmarks');
    expect(chapter).toContain(BEGIN);
    expect(chapter).toContain(END);
    // seconds, MiB, MB/s, ratios and percentages measured: only the generated section may hold them
    const figures = prose.match(/\b\d+(\.\d+)?\s?(s|ms|MiB|MB\/s|CPU s|×|x Go|%)(?![\w-])/g) ?? [];
    expect(figures.filter((f) => !/^30 s$/.test(f))).toStrictEqual([]);
  });

  test('docs/chaos.md: the chaos section equals what bench/chaos-figures.ts generates from bench/latest/chaos-*.json (npx tsx bench/readme-figures.ts --write)', () => {
    expect(currentChaosSection(CHAOS)).toBe(chaosFigures(LATEST));
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

  test('outside the generated section, docs/chaos.md states no measured figure', () => {
    const chapter = CHAOS;
    expect(chapter).toContain('# SampleDB under faults');
    expect(chapter).toContain(CHAOS_BEGIN);
    expect(chapter).toContain(CHAOS_END);
    const prose = chapter.replace(currentChaosSection(CHAOS) ?? '', '');
    // measured seconds, rows and write counts only in the generated section (bounds and settings are stated: 120 s, 5 s, 10 s, 30 s, 2 s, 1 s)
    const figures = prose.match(/\b\d+(\.\d+)?\s?(s|ms|rows|acknowledged writes|faults|min)(?![\w-])/g) ?? [];
    expect(figures.filter((f) => !/^(120|60|40|30|28|10|5|3|2|1) s$|^(20|5|7|1) faults$/.test(f))).toStrictEqual([]);
  });
});
