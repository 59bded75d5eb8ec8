/** Loads the recorded kube-apiserver fixtures and the SampleDB CRD they were recorded with. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** shared/ sits beside the repository (here and in CI). */
export const SHARED_FIXTURES = join(__dirname, '..', '..', '..', 'shared', 'fixtures');
export const FIXTURE_DIR = join(SHARED_FIXTURES, 'kube-apiserver');

export interface Fixture {
  readonly what: string;
  readonly request: { method: string; path: string; contentType: string | null; body: any };
  readonly response: { code: number; headers: Record<string, string>; body: any };
}

export function fixture(name: string): Fixture {
  return JSON.parse(readFileSync(join(FIXTURE_DIR, `${name}.json`), 'utf8'));
}

export function sampleDbCrd(): any {
  return parse(readFileSync(join(FIXTURE_DIR, 'crd.yaml'), 'utf8'));
}

export function fooCrd(): any {
  return parse(readFileSync(join(SHARED_FIXTURES, 'sample-controller', 'crd.yaml'), 'utf8'));
}

export function exampleFoo(): any {
  return parse(readFileSync(join(SHARED_FIXTURES, 'sample-controller', 'example-foo.yaml'), 'utf8'));
}
