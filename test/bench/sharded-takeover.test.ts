/**
 * The takeover timeline of `npm run chaos:sharded` (bench/sharded-takeover.ts) on a hand-made audit: a member (lease
 * L-a) is killed at t = 100 s, its Lease last changed at 99 s; the survivors (L-b, L-c) acknowledge a new view at
 * 115.5 s; its two objects are relabelled at 116 and 118 s, after one label write of another object; its Foo is
 * written by its new owner at 117 s.
 */
import { AuditedWrite, labelsRewritten, labelsWrittenBack, takeoverTimeline } from '../../bench/sharded-takeover';

const s = (x: number) => x * 1000;
const A = 'system:serviceaccount:default:member-0';
const B = 'system:serviceaccount:default:member-1';

const writes: AuditedWrite[] = [
  { user: A, object: 'leases/L-a', verb: 'update', at: s(99), code: 200, label: false },
  { user: B, object: 'leases/L-b', verb: 'update', at: s(99), code: 200, label: false },
  { user: B, object: 'foos/foo-1', verb: 'patch', at: s(10), code: 200, label: true, labelTo: 'L-a' },
  { user: A, object: 'deployments/foo-1', verb: 'create', at: s(11), code: 201, label: false, labelTo: 'L-a' },
  { user: A, object: 'foos/foo-1', verb: 'patch', at: s(95), code: 200, label: false },
  { user: B, object: 'foos/foo-9', verb: 'patch', at: s(115.8), code: 200, label: true, labelTo: 'L-c' },
  { user: B, object: 'foos/foo-1', verb: 'patch', at: s(116), code: 200, label: true, labelTo: 'L-b' },
  { user: B, object: 'foos/foo-1', verb: 'patch', at: s(117), code: 200, label: false },
  { user: B, object: 'deployments/foo-1', verb: 'patch', at: s(118), code: 200, label: true, labelTo: 'L-b' },
].sort((x, y) => x.at - y.at);

const leases = [
  { at: s(1), lease: 'L-a', view: 'v3', deleted: false },
  { at: s(1), lease: 'L-b', view: 'v3', deleted: false },
  { at: s(1), lease: 'L-c', view: 'v3', deleted: false },
  { at: s(99), lease: 'L-a', view: 'v3', deleted: false },
  { at: s(99), lease: 'L-b', view: 'v3', deleted: false },
  { at: s(99), lease: 'L-c', view: 'v3', deleted: false },
  { at: s(101), lease: 'L-b', view: 'v3', deleted: false },
  { at: s(101), lease: 'L-c', view: 'v3', deleted: false },
  { at: s(115), lease: 'L-b', view: 'v2', deleted: false },
  { at: s(115.5), lease: 'L-c', view: 'v2', deleted: false },
];

describe('the takeover timeline of the sharded chaos run', () => {
  test('each step, in seconds after the fault', () => {
    const t = takeoverTimeline(
      { kind: 'kill -9', member: A, at: s(100) },
      new Set(['foos/foo-1']),
      writes,
      leases,
      [{ at: s(116.5), user: B, depth: 40 }],
      s(15),
    );
    expect(t).toEqual({
      leaseGoneSeconds: 14,
      viewAcknowledgedSeconds: 15.5,
      share: 2,
      shareRelabelled: 2,
      firstRelabelSeconds: 16,
      lastRelabelSeconds: 18,
      labelWritesMeanwhile: { [B]: { share: 2, other: 1 } },
      orphans: 1,
      orphansTakenOver: 1,
      firstTakeoverSeconds: 17,
      lastTakeoverSeconds: 17,
      reconcileAfterRelabelSeconds: { median: 1, max: 1 },
      deepestWorkQueue: { user: B, depth: 40, atSeconds: 16.5 },
    });
  });

  test('labels written back (A → B → A) and rewritten unchanged are counted', () => {
    const w = (at: number, labelTo: string): AuditedWrite => ({
      user: B,
      object: 'foos/foo-2',
      verb: 'patch',
      at,
      code: 200,
      label: true,
      labelTo,
    });
    const history = [w(1, 'L-a'), w(2, 'L-b'), w(3, 'L-a'), w(4, 'L-a'), w(5, 'L-c')];
    expect(labelsWrittenBack(history)).toEqual({ writes: 1, objects: 1 });
    expect(labelsRewritten(history)).toBe(1);
  });
});
