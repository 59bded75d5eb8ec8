import { invalidValue, isRecord } from './services-field-errors';
import { required } from '../../apimachinery/field';
import { goQuote } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isDns1123Subdomain } from '../../apimachinery/names';

/*
 * A webhook's `clientConfig` as the apiserver checks it on create (validateValidatingWebhook's switch, with
 * k8s.io/apiserver/pkg/util/webhook's ValidateWebhookURL and ValidateWebhookService), after the v1 defaults
 * (`service.port` 443).
 */

/**
 * A service's missing name and namespace: `Required value: service name is required` up to 1.32 (measured on 1.28
 * and 1.32), a bare `Required value` on 1.36 (measured); 1.33 to 1.35 are worded as 1.32, their nearest measured
 * older version (the verdict is the same: only the words may differ).
 */
const BARE_SERVICE_REQUIRED = 36;

const FORM = '; desired format: https://host[/path]';

/** Exactly one of `url` and `service`, each valid. @internal */
export function clientConfigIssues(config: unknown, path: string, version: KubernetesVersion): Issue[] {
  const cc = isRecord(config) ? config : {};
  const has = (v: unknown) => v !== undefined && v !== null;
  if (has(cc.url) === has(cc.service)) {
    return [required(path, 'exactly one of url or service is required')];
  }
  if (has(cc.url)) return typeof cc.url === 'string' ? urlIssues(cc.url, `${path}.url`, version) : [];
  return serviceIssues(isRecord(cc.service) ? cc.service : {}, `${path}.service`, version);
}

/**
 * ValidateWebhookURL with forceHttps: the parts Go's url.Parse finds (the scheme lowercased; a host only after
 * `//`; user information before the last `@` of the authority; the fragment after `#`, then the query after `?`).
 * What url.Parse itself refuses comes first, alone (parseError).
 */
function urlIssues(url: string, path: string, version: KubernetesVersion): Issue[] {
  const unparsable = parseError(url);
  if (unparsable) {
    return [required(path, `url must be a valid URL: parse ${goQuote(url)}: ${unparsable}${FORM}`)];
  }
  const issues: Issue[] = [];
  const hash = url.indexOf('#');
  const fragment = hash < 0 ? '' : url.slice(hash + 1);
  let rest = hash < 0 ? url : url.slice(0, hash);
  const question = rest.indexOf('?');
  const query = question < 0 ? '' : rest.slice(question + 1);
  rest = question < 0 ? rest : rest.slice(0, question);
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(rest);
  const schemeName = scheme ? scheme[0].slice(0, -1).toLowerCase() : '';
  rest = scheme ? rest.slice(scheme[0].length) : rest;
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const authority = rest.slice(2).split('/')[0];
    const at = authority.lastIndexOf('@');
    user = at < 0 ? undefined : authority.slice(0, at);
    host = at < 0 ? authority : authority.slice(at + 1);
  }
  if (schemeName !== 'https') {
    issues.push(...invalidValue(path, schemeName, [`'https' is the only allowed URL scheme${FORM}`], version));
  }
  if (host === '') issues.push(...invalidValue(path, host, [`host must be specified${FORM}`], version));
  if (user !== undefined) {
    issues.push(...invalidValue(path, user, ['user information is not permitted in the URL'], version));
  }
  if (fragment !== '') {
    issues.push(...invalidValue(path, fragment, ['fragments are not permitted in the URL'], version));
  }
  if (query !== '') {
    issues.push(...invalidValue(path, query, ['query parameters are not permitted in the URL'], version));
  }
  return issues;
}

/**
 * The url.Parse errors a hand-written URL meets, in the order Go finds them: a control character anywhere, then in
 * the authority a host character no host may have or a bad `%` escape, then a bad escape in the path and in the
 * fragment (the query is not unescaped). Measured on 1.28, 1.32 and 1.36.
 */
function parseError(url: string): string | undefined {
  if (/[\x00-\x1f\x7f]/.test(url)) return 'net/url: invalid control character in URL';
  const hash = url.indexOf('#');
  const beforeFragment = hash < 0 ? url : url.slice(0, hash);
  const question = beforeFragment.indexOf('?');
  let rest = question < 0 ? beforeFragment : beforeFragment.slice(0, question);
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(rest);
  rest = scheme ? rest.slice(scheme[0].length) : rest;
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = rest.slice(2, slash < 0 ? undefined : slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const host = authority.slice(authority.lastIndexOf('@') + 1);
    const bad = /[^A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"%\x80-\uffff]/.exec(host);
    if (bad) return `invalid character ${goQuote(bad[0])} in host name`;
    const escape = badEscape(host);
    if (escape) return escape;
  }
  return badEscape(rest) ?? (hash < 0 ? undefined : badEscape(url.slice(hash + 1)));
}

/** Go's unescape: each `%` followed by two hex digits, else `invalid URL escape "%zz"` (up to three characters). */
function badEscape(text: string): string | undefined {
  const m = /%(?![0-9A-Fa-f]{2})/.exec(text);
  return m ? `invalid URL escape ${goQuote(text.slice(m.index, m.index + 3))}` : undefined;
}

/** ValidateWebhookService: name and namespace present, the port (default 443) valid, each path segment a subdomain. */
function serviceIssues(service: Record<string, any>, path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const bare = minorOf(version) >= BARE_SERVICE_REQUIRED;
  // upstream passes the Service's name and namespace to ValidateWebhookService in each other's places, so a missing
  // namespace is reported at `name` and a missing name at `namespace` (measured on 1.28, 1.32 and 1.36): the
  // server's paths, since they are what `kubectl apply` prints
  if (!service.namespace) issues.push(required(`${path}.name`, bare ? '' : 'service name is required'));
  if (!service.name) issues.push(required(`${path}.namespace`, bare ? '' : 'service namespace is required'));
  const port = service.port ?? 443;
  if (typeof port === 'number' && (port < 1 || port > 65535)) {
    issues.push(
      ...invalidValue(`${path}.port`, port, ['port is not valid: must be between 1 and 65535, inclusive'], version),
    );
  }
  const urlPath = service.path;
  if (typeof urlPath !== 'string' || urlPath === '/' || urlPath === '') return issues;
  const at = `${path}.path`;
  if (urlPath === '//') return [...issues, ...invalidValue(at, urlPath, ['segment[0] may not be empty'], version)];
  if (!urlPath.startsWith('/')) issues.push(...invalidValue(at, urlPath, ["must start with a '/'"], version));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((step, i) => {
    if (step === '') {
      issues.push(...invalidValue(at, urlPath, [`segment[${i}] may not be empty`], version));
      return;
    }
    const errs = isDns1123Subdomain(step).map((e) => `segment[${i}]: ${e}`);
    issues.push(...invalidValue(at, urlPath, errs, version));
  });
  return issues;
}
