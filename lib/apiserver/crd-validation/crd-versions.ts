import { child, forbidden, index, invalid, isObject, notSupported, required, warning } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { isDns1035Label } from '../../apimachinery/names';
import { CrdManifest } from '../crd-manifest';

/**
 * Version rules of a CRD: unique DNS-1035 names, exactly one storage version, at least one served
 * version (our own rule: the apiserver accepts a CRD that serves nothing), a schema for every version,
 * deprecation warnings, `spec.preserveUnknownFields`, `spec.conversion` and `status.storedVersions`.
 */
export function checkCrdVersions(manifest: CrdManifest): Issue[] {
  const issues: Issue[] = [];
  const spec: any = isObject(manifest.spec) ? manifest.spec : {};
  const versions: any[] = Array.isArray(spec.versions) ? spec.versions : [];

  if (versions.length === 0) issues.push(required('spec.versions', 'must have at least one version'));

  const seen = new Set<string>();
  let unique = true;
  versions.forEach((version, i) => {
    const path = index('spec.versions', i);
    const name = typeof version?.name === 'string' ? version.name : '';
    if (seen.has(name)) unique = false;
    seen.add(name);
    if (!name) {
      issues.push(required(child(path, 'name')));
    } else {
      const errs = isDns1035Label(name);
      if (errs.length > 0) issues.push(invalid(child(path, 'name'), name, errs.join(',')));
    }
    if (!isObject(version?.schema) || !isObject(version.schema.openAPIV3Schema)) {
      issues.push(required(child(path, 'schema', 'openAPIV3Schema'), 'schemas are required'));
    }
    issues.push(...checkDeprecationWarning(version ?? {}, child(path, 'deprecationWarning')));
  });

  if (!unique) issues.push(invalid('spec.versions', names(versions), 'must contain unique version names'));
  const storage = versions.filter((v) => v?.storage === true);
  if (storage.length !== 1) {
    issues.push(
      invalid(
        'spec.versions',
        storage.map((v) => v.name),
        'must have exactly one version marked as storage version',
      ),
    );
  }
  // the apiserver accepts a CRD that serves no version (e.g. while retiring it): suspicious, not invalid
  if (versions.length > 0 && !versions.some((v) => v?.served === true)) {
    issues.push(warning(invalid('spec.versions', names(versions), 'no version is served, so the API serves nothing')));
  }

  if (spec.preserveUnknownFields === true) {
    issues.push(
      invalid(
        'spec.preserveUnknownFields',
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  }
  issues.push(...checkConversion(spec.conversion));
  // a manifest's status never reaches the apiserver's checks (it resets status on create and keeps its own on
  // update), so what it says about stored versions is only a hint about the cluster it came from
  // (a storedVersions that is not a list is still an error: the apiserver cannot decode the object)
  if (isObject(manifest.status) && manifest.status.storedVersions !== undefined) {
    const stored = manifest.status.storedVersions;
    issues.push(
      ...checkStoredVersions(stored as string[], versions).map((i) => (Array.isArray(stored) ? warning(i) : i)),
    );
  }
  return issues;
}

function names(versions: any[]): string[] {
  return versions.map((v) => v?.name);
}

function checkDeprecationWarning(version: any, path: string): Issue[] {
  const message = version.deprecationWarning;
  if (message === undefined || message === null) return [];
  if (!version.deprecated) return [invalid(path, message, 'can only be set for deprecated versions')];
  const issues: Issue[] = [];
  const text = String(message);
  if (Buffer.byteLength(text, 'utf8') > 256) issues.push(invalid(path, message, 'must be <= 256 characters long'));
  if (text.length === 0) issues.push(invalid(path, message, 'must not be an empty string'));
  // eslint-disable-next-line no-control-regex
  const control = text.search(/[\u0000-\u001f\u007f-\u009f]/);
  if (control >= 0) {
    issues.push(
      invalid(
        path,
        message,
        `must only contain printable UTF-8 characters; control character found at index ${control}`,
      ),
    );
  }
  return issues;
}

function checkConversion(conversion: any): Issue[] {
  if (conversion === undefined || conversion === null) return [];
  const path = 'spec.conversion';
  const strategies = ['None', 'Webhook'];
  const strategy = conversion.strategy;
  if (!strategy) return [required(child(path, 'strategy'))];
  if (!strategies.includes(strategy)) return [notSupported(child(path, 'strategy'), strategy, strategies)];
  const issues: Issue[] = [];
  const webhook = conversion.webhook;
  if (strategy === 'Webhook') {
    if (!isObject(webhook) || !isObject(webhook.clientConfig)) {
      issues.push(required(child(path, 'webhook', 'clientConfig'), 'required when strategy is set to Webhook'));
    } else if ((webhook.clientConfig.url === undefined) === (webhook.clientConfig.service === undefined)) {
      issues.push(required(child(path, 'webhook', 'clientConfig'), 'exactly one of url or service is required'));
    }
    const reviewVersions: unknown[] =
      isObject(webhook) && Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions : [];
    if (reviewVersions.length === 0) {
      issues.push(required(child(path, 'webhook', 'conversionReviewVersions')));
    } else if (!reviewVersions.some((v) => v === 'v1' || v === 'v1beta1')) {
      issues.push(
        invalid(
          child(path, 'webhook', 'conversionReviewVersions'),
          reviewVersions,
          'must include at least one of v1, v1beta1',
        ),
      );
    }
  } else if (webhook !== undefined) {
    issues.push(forbidden(child(path, 'webhook'), 'should not be set when strategy is not set to Webhook'));
  }
  return issues;
}

/**
 * Every version listed in `status.storedVersions` must remain in `spec.versions` until a storage migration
 * removed it. An empty list (as generated manifests carry it) is ignored: on create the apiserver fills it in.
 */
export function checkStoredVersions(storedVersions: readonly string[], versions: readonly any[]): Issue[] {
  const path = 'status.storedVersions';
  if (!Array.isArray(storedVersions)) return [invalid(path, storedVersions, 'must be a list of version names')];
  const specNames = new Set(versions.map((v) => v?.name));
  const issues: Issue[] = [];
  storedVersions.forEach((stored, i) => {
    if (!specNames.has(stored)) {
      issues.push(
        invalid(
          index(path, i),
          stored,
          `missing from spec.versions; ${stored} was previously a storage version, and must remain in spec.versions ` +
            `until a storage migration ensures no data remains persisted in ${stored} and removes ${stored} from status.storedVersions`,
        ),
      );
    }
  });
  return issues;
}
