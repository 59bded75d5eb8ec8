import { Construct } from 'constructs';
import { CustomResourceDefinition } from '../lib';
import { fooCrd } from './foo/foo-crd';
import { sampleDbCrd } from './sampledb/sampledb-crd';

/** Every CRD the apps define; `npx projen import` generates `imports/<group>.ts` from these. */
export function defineCrds(scope: Construct): CustomResourceDefinition[] {
  return [sampleDbCrd(scope), fooCrd(scope)];
}
