import { seededRandom } from './seeded-random';

/**
 * Seeds and single mutations of them (a character from `alphabet` inserted or replacing one, a character
 * deleted, two seeds joined, the case changed), until `count` distinct values or `maxTries` attempts:
 * the generated values around each rule's edges that the differential tests send to the apiserver.
 */
export function stringMutations(
  seeds: readonly string[],
  alphabet: readonly string[],
  seed: number,
  count: number,
  maxTries: number,
): string[] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const values = new Set(seeds);
  for (let tries = 0; values.size < count && tries < maxTries; tries++) {
    const s = pick(seeds);
    const c = pick(alphabet);
    const at = pick([0, 1, Math.floor(s.length / 2), s.length - 1, s.length]);
    switch (Math.floor(random() * 5)) {
      case 0:
        values.add(s.slice(0, at) + c + s.slice(at));
        break;
      case 1:
        values.add(s.slice(0, at) + c + s.slice(at + 1));
        break;
      case 2:
        values.add(s.slice(0, at) + s.slice(at + 1));
        break;
      case 3:
        values.add(s + pick(seeds));
        break;
      default:
        values.add(random() < 0.5 ? s.toUpperCase() : s.toLowerCase());
        break;
    }
  }
  return [...values];
}
