/**
 * What docs/sharding.md says about the apiserver's shard selector is what the committed output of
 * tools/probe/shard-selector.ts says (bench/latest/shard-selector-probe-*.txt): each finding against its line.
 */
import * as fs from 'fs';
import * as path from 'path';

const ROOT = path.join(__dirname, '..', '..');
const FILES = {
  on: 'bench/latest/shard-selector-probe-v1.36.3-gate-on.txt',
  off: 'bench/latest/shard-selector-probe-v1.36.3-gate-off.txt',
  old: 'bench/latest/shard-selector-probe-v1.32.13.txt',
};

/** The numbered finding lines of a probe output (`4.` occurs once per malformed selector). */
function findings(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n')) {
    const m = /^(\d)\. /.exec(line);
    if (m) out.set(m[1], [...(out.get(m[1]) ?? []), line]);
  }
  return out;
}

describe('the shard selector probe and docs/sharding.md', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/sharding.md'), 'utf8');
  const on = findings(FILES.on);

  test('the page cites the three committed outputs', () => {
    // as code (`bench/latest/...`): bench/ does not ship with the package, so a link from a shipped doc would break
    for (const file of Object.values(FILES)) expect(doc).toContain(`\`${file}\``);
  });

  test('gate on: FNV-1a of the UID (the figures the page quotes), the 2^64 end bound, HTTP 500, the echo', () => {
    const hash =
      /lower half \[0, 2\^63\) returned (\d+), upper half \[2\^63, 2\^64\) returned (\d+).*disagree with FNV-1a of the UID: (\d+) of 40; with FNV-1 \(the control\): (\d+) of 40/.exec(
        on.get('2')![0],
      );
    expect(hash).not.toBeNull();
    const [, lower, upper, mismatches, control] = hash!;
    expect(mismatches).toBe('0');
    expect(doc).toContain(`returned\n  ${lower} and ${upper} ConfigMaps`);
    expect(doc).toContain(`(with\n  FNV-1, the control, ${control} of 40 did)`);
    expect(on.get('3')![0]).toContain('HTTP 200, 40 of 40 returned');
    expect(on.get('4')!.length).toBeGreaterThanOrEqual(4);
    for (const line of on.get('4')!) expect(line).toMatch(/: HTTP 500 "invalid shard selector: /);
    expect(on.get('1')![0]).toContain('(the selector, echoed)');
    expect(on.get('5')![0]).toMatch(/returned \(the full list returned \d+\); metadata\.shardInfo\.selector: absent$/);
    expect(on.get('6')![0]).toMatch(
      /lower half: HTTP 200, (0|40) of 40 returned; of the upper half: HTTP 200, (0|40) of 40/,
    );
  });

  test('gate off and v1.32.13: ignored, even malformed; the OpenAPI lists it with the gate off only', () => {
    for (const file of [FILES.off, FILES.old]) {
      const f = findings(file);
      expect(f.get('1')![0]).toContain('40 of 40 ConfigMaps returned; metadata.shardInfo.selector: absent');
      expect(f.get('2')![0]).toContain('the selector was ignored');
      for (const line of f.get('4')!) expect(line).toContain('HTTP 200, 40 of 40 returned');
    }
    expect(findings(FILES.off).get('7')![0]).toMatch(/shardSelector: listed$/);
    expect(findings(FILES.old).get('7')![0]).toMatch(/shardSelector: not listed$/);
    expect(on.get('7')![0]).toMatch(/shardSelector: listed$/);
  });
});
