import { arr, dnsSubdomainIssues, obj } from './pod-spec-common';
import { child, index, invalid } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';

/*
 * Windows options of a security context (validateWindowsSecurityContextOptions: the GMSA credential spec and its
 * name, the user to run as), and the HostProcess containers of a pod (validateWindowsHostProcessPod). Measured alike
 * on 1.28, 1.32 and 1.36.
 */

const MAX_GMSA_KIB = 64;
const MAX_DOMAIN = 256;
const MAX_USER = 104;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;
const NETBIOS = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/;
const DNS_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const DOMAIN_DNS = new RegExp(`^${DNS_LABEL}(?:\\.${DNS_LABEL})*$`);
const USER_CHARS = /["/\\:;|=,+*?<>@[\]]/;
const DOTS_SPACES = /^[. ]+$/;

function runAsUserNameIssues(path: string, name: string): Issue[] {
  const bad = (msg: string) => invalid(path, name, msg);
  if (name.length === 0) return [bad('runAsUserName cannot be an empty string')];
  if (CONTROL.test(name)) return [bad('runAsUserName cannot contain control characters')];
  const parts = name.split('\\');
  if (parts.length > 2) return [bad('runAsUserName cannot contain more than one backslash')];
  const [domain, user] = parts.length === 1 ? ['', parts[0]] : parts;
  const issues: Issue[] = [];
  // lengths in bytes, as Go's len
  if (Buffer.byteLength(domain) >= MAX_DOMAIN) {
    issues.push(bad(`runAsUserName's Domain length must be under ${MAX_DOMAIN} characters`));
  }
  if (parts.length === 2 && !NETBIOS.test(domain) && !DOMAIN_DNS.test(domain)) {
    issues.push(bad("runAsUserName's Domain doesn't match the NetBios nor the DNS format"));
  }
  if (user.length === 0) {
    issues.push(bad("runAsUserName's User cannot be empty"));
  } else if (Buffer.byteLength(user) > MAX_USER) {
    issues.push(bad(`runAsUserName's User length must not be longer than ${MAX_USER} characters`));
  }
  if (DOTS_SPACES.test(user)) issues.push(bad("runAsUserName's User cannot contain only periods or spaces"));
  if (USER_CHARS.test(user)) {
    issues.push(bad('runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]'));
  }
  return issues;
}

/**
 * validateWindowsSecurityContextOptions of the windowsOptions at `path` (a container's or the pod's
 * `securityContext.windowsOptions`).
 *
 * @internal
 */
export function windowsOptionsIssues(path: string, raw: unknown): Issue[] {
  if (raw == null) return [];
  const w = obj(raw);
  const issues: Issue[] = [];
  if (typeof w.gmsaCredentialSpecName === 'string') {
    issues.push(...dnsSubdomainIssues(child(path, 'gmsaCredentialSpecName'), w.gmsaCredentialSpecName));
  }
  if (typeof w.gmsaCredentialSpec === 'string') {
    const at = child(path, 'gmsaCredentialSpec');
    const size = Buffer.byteLength(w.gmsaCredentialSpec);
    if (size === 0) {
      issues.push(invalid(at, w.gmsaCredentialSpec, 'gmsaCredentialSpec cannot be an empty string'));
    } else if (size > MAX_GMSA_KIB * 1024) {
      issues.push(invalid(at, w.gmsaCredentialSpec, `gmsaCredentialSpec size must be under ${MAX_GMSA_KIB} KiB`));
    }
  }
  if (typeof w.runAsUserName === 'string') {
    issues.push(...runAsUserNameIssues(child(path, 'runAsUserName'), w.runAsUserName));
  }
  return issues;
}

/** The containers of a pod spec with their paths, in the order upstream visits them (VisitContainersWithPath). @internal */
export function everyContainer(specPath: string, spec: any): Array<{ path: string; container: Record<string, any> }> {
  return (['initContainers', 'containers', 'ephemeralContainers'] as const).flatMap((list) =>
    arr(spec[list]).map((c, i) => ({ path: index(child(specPath, list), i), container: obj(c) })),
  );
}

const hostProcessOf = (sc: unknown): unknown => obj(obj(sc).windowsOptions).hostProcess;

/**
 * validateWindowsHostProcessPod's checks of the containers (the pod's hostNetwork is pod-spec.ts's): a container's
 * hostProcess as the pod's when both are set, and all containers HostProcess ones (set or inherited) when any is.
 *
 * @internal
 */
export function hostProcessContainersIssues(specPath: string, spec: any): Issue[] {
  const pod = hostProcessOf(spec.securityContext);
  const issues: Issue[] = [];
  const containers = everyContainer(specPath, spec);
  let hostProcess = 0;
  for (const { path, container } of containers) {
    const own = hostProcessOf(container.securityContext);
    if (typeof pod === 'boolean' && typeof own === 'boolean' && pod !== own) {
      issues.push(
        invalid(
          child(path, 'securityContext', 'windowsOptions', 'hostProcess'),
          own,
          `pod hostProcess value must be identical if both are specified, was ${pod}`,
        ),
      );
    }
    if (own === true || (own == null && pod === true)) hostProcess++;
  }
  if (hostProcess > 0 && hostProcess !== containers.length) {
    issues.push(
      invalid(
        specPath,
        '',
        'If pod contains any hostProcess containers then all containers must be HostProcess containers',
      ),
    );
  }
  return issues;
}
