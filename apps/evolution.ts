// How the demo apps' CRDs may evolve from the released ones in crd-baselines/: shared by the synth entry
// (apps/main.ts) and the baseline test, so an acknowledged breaking change is written down once.
// None is acknowledged: SampleDB's restoreFrom changed shape in a new version (v2) with a conversion, v1 stays as released.
import * as path from 'path';
import type { OperatorAppProps } from '../lib';

export const DEMO_EVOLUTION: NonNullable<OperatorAppProps['evolution']> = {
  baselineDir: path.join(__dirname, '..', 'crd-baselines'),
};
