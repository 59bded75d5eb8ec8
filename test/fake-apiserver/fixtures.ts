/** Loads the recorded kube-apiserver fixtures and the SampleDB CRD they were recorded with. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export const FIXTURE_DIR = '/work/shared/fixtures/kube-apiserver';

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
  return parse(readFileSync('/work/shared/fixtures/sample-controller/crd.yaml', 'utf8'));
}
