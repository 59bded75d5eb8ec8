import { parseIpSloppy } from './networking-ip';
import { portNameErrors, portNumberErrors } from './ports';
import {
  invalidShown,
  invalidValue,
  isRecord,
  listOf,
  recordsOf,
  stringsOf,
  unsupportedValue,
} from './services-field-errors';
import { pathSegmentNameErrors, wildcardSubdomainErrors } from './services-names';
import { required } from '../../apimachinery/field';
import { tooLongBytes } from '../../apimachinery/field-error-details';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf, since } from '../../apimachinery/kubernetes-versions';
import { isDns1035Label, isDns1123Label, isDns1123Subdomain } from '../../apimachinery/names';

/*
 * The apiserver's create-time validation of a networking.k8s.io/v1 Ingress and IngressClass
 * (pkg/apis/networking/validation's ValidateIngressCreate and ValidateIngressClass). Measured on 1.28, 1.32 and 1.36.
 */

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'] as const;
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'] as const;
const INVALID_PATH_SUFFIXES = ['/..', '/.'] as const;
/** A backend's Service name: a DNS-1035 label, an RFC 1123 label from 1.35 (RelaxedServiceNameValidation; measured on 1.36). */
const RELAXED_SERVICE_NAMES = 35;
/** `Required value: kind is required` lost its detail (measured on 1.36; placed with apimachinery v0.34's clean-up of Required details). */
const REQUIRED_WITHOUT_DETAIL = 34;

/** A host: a DNS name (wildcard `*.` allowed), not an IP. */
function hostErrors(host: string, allowIpCheck: boolean): string[] {
  const errs: string[] = [];
  if (allowIpCheck && parseIpSloppy(host)) errs.push('must be a DNS name, not an IP address');
  return [...errs, ...(host.includes('*') ? wildcardSubdomainErrors(host) : isDns1123Subdomain(host))];
}

function requiredWithDetail(path: string, detail: string, version: KubernetesVersion): Issue {
  return required(path, minorOf(version) >= REQUIRED_WITHOUT_DETAIL ? '' : detail);
}

/** validateIngressTypedLocalObjectReference: a resource backend, or an IngressClass's parameters. @internal */
export function typedReferenceIssues(ref: Record<string, any>, at: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  if (typeof ref.apiGroup === 'string') {
    issues.push(...invalidValue(`${at}.apiGroup`, ref.apiGroup, isDns1123Subdomain(ref.apiGroup), version));
  }
  for (const [field, detail] of [
    ['kind', 'kind is required'],
    ['name', 'name is required'],
  ] as const) {
    const v = typeof ref[field] === 'string' ? ref[field] : '';
    if (v === '') issues.push(requiredWithDetail(`${at}.${field}`, detail, version));
    else issues.push(...invalidValue(`${at}.${field}`, v, pathSegmentNameErrors(v), version));
  }
  return issues;
}

function backendIssues(backend: unknown, at: string, version: KubernetesVersion): Issue[] {
  const b = isRecord(backend) ? backend : {};
  const empty = (detail: string) => [invalidShown(at, '', '""', detail)];
  const hasResource = isRecord(b.resource);
  const service = b.service;
  if (hasResource && isRecord(service)) return empty('cannot set both resource and service backends');
  if (hasResource) return typedReferenceIssues(b.resource, `${at}.resource`, version);
  if (!isRecord(service)) return empty('resource or service backend is required');
  const issues: Issue[] = [];
  const name = typeof service.name === 'string' ? service.name : '';
  if (name === '') {
    issues.push(required(`${at}.service.name`));
  } else {
    const check = minorOf(version) >= RELAXED_SERVICE_NAMES ? isDns1123Label : isDns1035Label;
    issues.push(...invalidValue(`${at}.service.name`, name, check(name), version));
  }
  const port = isRecord(service.port) ? service.port : {};
  const portName = typeof port.name === 'string' ? port.name : '';
  const portNumber = typeof port.number === 'number' ? port.number : 0;
  if (portName !== '' && portNumber !== 0) {
    issues.push(...empty('cannot set both port name & port number'));
  } else if (portName !== '') {
    issues.push(...invalidValue(`${at}.service.port.name`, portName, portNameErrors(portName), version));
  } else if (portNumber !== 0) {
    issues.push(...invalidValue(`${at}.service.port.number`, portNumber, portNumberErrors(portNumber), version));
  } else {
    issues.push(required(at, 'port name or number is required'));
  }
  return issues;
}

function httpPathIssues(p: Record<string, any>, at: string, version: KubernetesVersion): Issue[] {
  const path = typeof p.path === 'string' ? p.path : '';
  const type = p.pathType;
  if (type === undefined || type === null) return [required(`${at}.pathType`, 'pathType must be specified')];
  const issues: Issue[] = [];
  const pathAt = `${at}.path`;
  if (type === 'Exact' || type === 'Prefix') {
    if (!path.startsWith('/')) issues.push(...invalidValue(pathAt, path, ['must be an absolute path'], version));
    for (const seq of INVALID_PATH_SEQUENCES) {
      if (path.includes(seq)) issues.push(...invalidValue(pathAt, path, [`must not contain '${seq}'`], version));
    }
    for (const suffix of INVALID_PATH_SUFFIXES) {
      if (path.endsWith(suffix)) issues.push(...invalidValue(pathAt, path, [`cannot end with '${suffix}'`], version));
    }
  } else if (type === 'ImplementationSpecific') {
    if (path !== '' && !path.startsWith('/')) {
      issues.push(...invalidValue(pathAt, path, ['must be an absolute path'], version));
    }
  } else {
    issues.push(unsupportedValue(`${at}.pathType`, type, PATH_TYPES, version));
  }
  return [...issues, ...backendIssues(p.backend, `${at}.backend`, version)];
}

const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** @internal */
export function ingressIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const issues: Issue[] = [];
  const rules = spec.rules;
  const hasDefault = isRecord(spec.defaultBackend);
  if (listOf(rules).length === 0 && !hasDefault) {
    const shown = Array.isArray(rules)
      ? since(version, 'fieldValuesAsJson')
        ? '[]'
        : '[]networking.IngressRule{}'
      : since(version, 'fieldValuesAsJson')
        ? 'null'
        : '[]networking.IngressRule(nil)';
    issues.push(invalidShown('spec', rules ?? null, shown, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (hasDefault) issues.push(...backendIssues(spec.defaultBackend, 'spec.defaultBackend', version));
  recordsOf(rules).forEach((rule, i) => {
    const at = `spec.rules[${i}]`;
    if (typeof rule.host === 'string' && rule.host !== '') {
      issues.push(...invalidValue(`${at}.host`, rule.host, hostErrors(rule.host, true), version));
    }
    if (isRecord(rule.http)) {
      const paths = recordsOf(rule.http.paths);
      if (paths.length === 0) issues.push(required(`${at}.http.paths`));
      paths.forEach((p, j) => issues.push(...httpPathIssues(p, `${at}.http.paths[${j}]`, version)));
    }
  });
  recordsOf(spec.tls).forEach((tls, i) => {
    stringsOf(tls.hosts).forEach((h, j) => {
      if (typeof h === 'string') {
        issues.push(...invalidValue(`spec.tls[${i}].hosts[${j}]`, h, hostErrors(h, false), version));
      }
    });
    if (typeof tls.secretName === 'string' && tls.secretName !== '') {
      issues.push(
        ...invalidValue(`spec.tls[${i}].secretName`, tls.secretName, isDns1123Subdomain(tls.secretName), version),
      );
    }
  });
  const className = spec.ingressClassName;
  if (typeof className === 'string') {
    issues.push(...invalidValue('spec.ingressClassName', className, isDns1123Subdomain(className), version));
    // the deprecated class annotation may stay beside the field, with the same value (the apiserver's path lacks `metadata`)
    const annotation = object?.metadata?.annotations?.[INGRESS_CLASS_ANNOTATION];
    if (annotation !== undefined && annotation !== className) {
      issues.push(
        ...invalidValue(
          `annotations.${INGRESS_CLASS_ANNOTATION}`,
          annotation,
          ['must match `ingressClassName` when both are specified'],
          version,
        ),
      );
    }
  }
  return issues;
}

const HTTP_PATH = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;
const SCOPES = ['Cluster', 'Namespace'] as const;

/** IngressClass: a controller (a domain-prefixed path), parameters. @internal */
export function ingressClassIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const issues: Issue[] = [];
  const controller = typeof spec.controller === 'string' ? spec.controller : '';
  const at = 'spec.controller';
  if (controller === '') {
    issues.push(required(at));
  } else if (controller.length > 250) {
    issues.push({ path: at, message: tooLongBytes(250, version), value: controller });
  } else {
    const slash = controller.indexOf('/');
    const host = slash < 0 ? '' : controller.slice(0, slash);
    const path = slash < 0 ? '' : controller.slice(slash + 1);
    if (host === '' || path === '') {
      issues.push(...invalidValue(at, controller, ['must be a domain-prefixed path (such as "acme.io/foo")'], version));
    } else {
      issues.push(...invalidValue(at, host, isDns1123Subdomain(host), version));
      if (!HTTP_PATH.test(path)) {
        issues.push(
          ...invalidValue(
            at,
            path,
            ["Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"],
            version,
          ),
        );
      }
    }
  }
  const params = spec.parameters;
  if (isRecord(params)) {
    const p = 'spec.parameters';
    issues.push(...typedReferenceIssues(params, p, version));
    const scope = params.scope ?? 'Cluster';
    if (!(SCOPES as readonly string[]).includes(scope)) {
      issues.push(unsupportedValue(`${p}.scope`, scope, SCOPES, version));
    } else if (scope === 'Namespace') {
      if (typeof params.namespace !== 'string') {
        issues.push(required(`${p}.namespace`, "`parameters.scope` is set to 'Namespace'"));
      } else {
        issues.push(...invalidValue(`${p}.namespace`, params.namespace, isDns1123Label(params.namespace), version));
      }
    } else if (params.namespace !== undefined && params.namespace !== null) {
      issues.push({ path: `${p}.namespace`, message: "Forbidden: `parameters.scope` is set to 'Cluster'" });
    }
  }
  return issues;
}
