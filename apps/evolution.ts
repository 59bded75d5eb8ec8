// How the demo apps' CRDs may evolve from the released ones in crd-baselines/: shared by the synth entry
// (apps/main.ts) and the baseline test, so an acknowledged breaking change is written down once.
import * as path from 'path';
import type { OperatorAppProps } from '../lib';

export const DEMO_EVOLUTION: NonNullable<OperatorAppProps['evolution']> = {
  baselineDir: path.join(__dirname, '..', 'crd-baselines'),
  acknowledge: [{
    change: 'type-changed v1:.spec.restoreFrom',
    reason: 'SampleDB restores from any SampleDB in the namespace: restoreFrom is { sampleDB, backup } (issue 13); a string restoreFrom of 0.1.0 becomes { backup: <string> }',
  }],
};
