import {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  or,
  resourceVersionChanged,
} from '../../runtime/predicates';
import { KubeObject } from '../../runtime/resource';

const o = (
  generation: number,
  labels: Record<string, string> = {},
  annotations: Record<string, string> = {},
  rv = '1',
): KubeObject => ({ metadata: { name: 'x', generation, labels, annotations, resourceVersion: rv } });

describe('predicates', () => {
  test('generationChanged passes spec edits, creates and deletes, not status-only updates', () => {
    expect(generationChanged('update', o(1), o(1, {}, {}, '2'))).toBe(false);
    expect(generationChanged('update', o(1), o(2))).toBe(true);
    expect(generationChanged('create', o(1), o(1))).toBe(true);
    expect(generationChanged('delete', o(1), o(1))).toBe(true);
  });

  test('labels and annotations', () => {
    expect(labelsChanged('update', o(1, { a: '1' }), o(1, { a: '1' }))).toBe(false);
    expect(labelsChanged('update', o(1, { a: '1' }), o(1, { a: '2' }))).toBe(true);
    expect(annotationsChanged('update', o(1, {}, { a: '1' }), o(1, {}, {}))).toBe(true);
    expect(annotationsChanged('update', o(1, { x: 'y' }), o(1))).toBe(false);
  });

  test('combinators and resync filter', () => {
    const p = or(generationChanged, labelsChanged);
    expect(p('update', o(1), o(1, { a: '1' }))).toBe(true);
    expect(p('update', o(1), o(1))).toBe(false);
    expect(and(generationChanged, labelsChanged)('update', o(1), o(2))).toBe(false);
    expect(resourceVersionChanged('update', o(1), o(1))).toBe(false);
  });
});
