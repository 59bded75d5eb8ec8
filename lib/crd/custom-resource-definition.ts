import * as fs from 'fs';
import { ApiObject, Lazy } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { ICustomResourceDefinition } from './icustom-resource-definition';
import { loadKubectlYaml } from './kubectl-yaml';
import { ManifestApiObject } from './manifest-api-object';
import { nameConflicts } from './name-conflicts';
import { pluralOf, singularOf } from './plural';
import { formatCrdIssues } from './shared-version-issues';
import { errorsOf, Issue, warningsOf } from '../apimachinery/issue';
import { DEFAULT_KUBERNETES_VERSION, KUBERNETES_VERSIONS } from '../apimachinery/kubernetes-versions';
import { CrdManifest, CrdNamesSpec, CrdVersionSpec, PrinterColumnSpec, ResourceScope } from '../apiserver/crd-manifest';
import { SchemaCheckMemo } from '../apiserver/crd-validation/schema-check-memo';
import { validateCrdManifestWith, withApiserverDefaults } from '../apiserver/crd-validation/validate-crd';
import { crdIssuesForVersions } from '../apiserver/crd-validation/version-support';
import { JSONSchemaProps, ValidationRule } from '../apiserver/schema/json-schema-props';
import { schemaProblems } from '../schema/schema-problems';
import { stripDescriptions } from '../schema/strip-descriptions';
import { Problems } from '../synth-metadata/problems';
import { targetVersions } from '../synth-metadata/target-versions';
import { Warnings } from '../synth-metadata/warnings';

/** One `additionalPrinterColumns` entry: a column of `kubectl get`. */
export interface PrinterColumn {
  /** Column header. */
  readonly name: string;
  /** How kubectl formats the value. */
  readonly type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  /** Simple JSONPath into the object, e.g. `.status.replicas` or `.status.conditions[?(@.type=="Ready")].status`. */
  readonly jsonPath: string;
  /** `int32`, `int64`, `float`, `double`, `byte`, `date`, `date-time` or `password`. @default - none */
  readonly format?: string;
  /** 0 shows the column in the standard view; higher numbers only with `-o wide`. @default 0 */
  readonly priority?: number;
  /** Human readable description. @default - none */
  readonly description?: string;
}

/**
 * The scale subresource (`/scale`), used by `kubectl scale` and the HorizontalPodAutoscaler.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#scale-subresource
 */
export interface ScaleSubresource {
  /** Path of the desired replicas, under `.spec.` (an integer field), e.g. `.spec.replicas`. */
  readonly specReplicasPath: string;
  /** Path of the observed replicas, under `.status.` (an integer field), e.g. `.status.replicas`. */
  readonly statusReplicasPath: string;
  /** Path of the serialized label selector (a string field) under `.spec.` or `.status.`, needed by the HPA. @default - none */
  readonly labelSelectorPath?: string;
}

/** Subresources of a version. */
export interface CrdSubresources {
  /**
   * Enables `/status`: the main endpoint ignores changes to `status`, `/status` ignores everything else.
   * @default - true when the version's schema declares a `status` property
   */
  readonly status?: boolean;
  /** Enables `/scale`. @default - no scale subresource */
  readonly scale?: ScaleSubresource;
}

/** One served version of the custom resource. */
export interface CrdVersionProps {
  /** Version name, e.g. `v1alpha1`, `v1`. */
  readonly name: string;
  /** Whether the API serves this version. @default true */
  readonly served?: boolean;
  /** Whether objects are stored in etcd in this version (exactly one version). @default - true when it is the only version */
  readonly storage?: boolean;
  /** Whether clients get a deprecation warning when using this version. @default false */
  readonly deprecated?: boolean;
  /** Custom deprecation warning (only with `deprecated`, at most 256 characters). @default - the apiserver's generic warning */
  readonly deprecationWarning?: string;
  /**
   * The complete `openAPIV3Schema` (root object with apiVersion, kind, metadata, spec, status).
   * Give either this or `spec`/`status`.
   * @default - built from `spec` and `status`
   */
  readonly schema?: JSONSchemaProps;
  /** Schema of `.spec`, wrapped into a root object schema with apiVersion, kind and metadata. @default - no spec field */
  readonly spec?: JSONSchemaProps;
  /** Schema of `.status`, wrapped like `spec`. @default - no status field */
  readonly status?: JSONSchemaProps;
  /**
   * Whole-object CEL rules (`x-kubernetes-validations` on the root schema): `self` is the object, so a rule may relate
   * `self.metadata.name` (and `generateName`, the only metadata fields the apiserver lets a CRD's rules see) to
   * `self.spec`, or `self.spec` to `self.status`. Checked at synth like every other rule (compiled for each Kubernetes
   * version of the app, and evaluated against the chart's custom resources). Only with `spec`/`status`: with a
   * complete `schema`, put them in its root `x-kubernetes-validations`.
   * @example [{ rule: "self.metadata.name.startsWith(self.spec.prefix + '-')", message: 'the name must start with spec.prefix' }]
   * @default - none
   */
  readonly validations?: readonly ValidationRule[];
  /** Extra `kubectl get` columns. @default - none */
  readonly printerColumns?: readonly PrinterColumn[];
  /** Subresources. @default - status when the schema declares `status` */
  readonly subresources?: CrdSubresources;
  /**
   * JSON paths of scalar fields usable in field selectors (`kubectl get --field-selector`), Kubernetes >= 1.30.
   * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#crd-selectable-fields
   * @default - none
   */
  readonly selectableFields?: readonly string[];
}

/**
 * Conversion between versions by a webhook (`spec.conversion.strategy: Webhook`): the apiserver sends
 * a ConversionReview to the Service whenever a client reads or writes a version other than the stored one.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/#webhook-conversion
 */
export interface CrdConversionWebhook {
  /** Service in front of the webhook server, e.g. the operator's. */
  readonly service: {
    readonly name: string;
    readonly namespace: string;
    /** @default 443 */
    readonly port?: number;
    /** URL path of the conversion handler. @default '/convert' */
    readonly path?: string;
  };
  /** ConversionReview versions the webhook understands, most preferred first. @default ['v1'] */
  readonly conversionReviewVersions?: readonly string[];
  /**
   * PEM CA bundle (base64) that signed the webhook's serving certificate.
   * @default - none: injected at run time by the operator that serves the webhook (it manages its own CA)
   */
  readonly caBundle?: string;
}

/** Props of a CustomResourceDefinition. */
export interface CustomResourceDefinitionProps {
  /** API group, a domain with at least one dot, e.g. `database.example.com`. */
  readonly group: string;
  /** Kind in CamelCase, e.g. `SampleDB`. */
  readonly kind: string;
  /** Resource name used in URLs and RBAC. @default - the English plural of the kind, lowercase (`Proxy` → `proxies`) */
  readonly plural?: string;
  /** @default - the kind in lowercase */
  readonly singular?: string;
  /** @default - `<Kind>List` */
  readonly listKind?: string;
  /** Short names for kubectl, e.g. `['sdb']`. @default - none */
  readonly shortNames?: readonly string[];
  /** Groups for `kubectl get <category>`, e.g. `['all']`. @default - none */
  readonly categories?: readonly string[];
  /** @default ResourceScope.NAMESPACED */
  readonly scope?: ResourceScope;
  /**
   * What the kind is, shown by `kubectl explain <kind>` (the root description of every version built
   * from `spec`/`status`).
   * @default - none
   */
  readonly description?: string;
  /** Versions; more can be added with `addVersion()`. @default - none yet */
  readonly versions?: readonly CrdVersionProps[];
  /**
   * Conversion between versions whose schemas differ (a renamed or re-typed field): a webhook, usually
   * the operator's (the `Operator` construct sets it for the kinds in its contract's `conversion`).
   * @default - strategy None: the apiserver only rewrites apiVersion, so versions must share one schema
   */
  readonly conversion?: CrdConversionWebhook;
  /** Annotations of the CRD object. @default - none */
  readonly annotations?: { readonly [key: string]: string };
  /** Labels of the CRD object. @default - none */
  readonly labels?: { readonly [key: string]: string };
  /**
   * Schema subtrees whose `description`s are dropped from the emitted manifest, to stay under the size
   * limits: `'*'` for every version's whole schema, or paths below the root's properties such as
   * `'spec.properties.template'`.
   * @default - keep every description
   */
  readonly stripDescriptions?: readonly string[];
  /**
   * Warnings about this CRD that are accepted on purpose (e.g. a printer column of a field the schema does not
   * declare): they are no longer printed. An acknowledgement that matches no warning is itself a warning.
   * @default - none
   */
  readonly acknowledgedWarnings?: readonly AcknowledgedWarning[];
}

/** A synth warning about a CRD, accepted on purpose. */
export interface AcknowledgedWarning {
  /** The field path the warning names, e.g. `spec.versions[0].additionalPrinterColumns[7].jsonPath`. */
  readonly path: string;
  /** Why it is fine. */
  readonly reason: string;
}

/** Options of the raw path (`fromManifest`, `fromFile`). */
export interface CrdImportOptions {
  /** As `CustomResourceDefinitionProps.stripDescriptions`. @default - emit the manifest unchanged */
  readonly stripDescriptions?: readonly string[];
  /** As `CustomResourceDefinitionProps.acknowledgedWarnings`. @default - none */
  readonly acknowledgedWarnings?: readonly AcknowledgedWarning[];
}

const CRD_MARKER = Symbol.for('cdk8s-operator.CustomResourceDefinition');
const RAW_MANIFEST = Symbol('raw-manifest');

/**
 * An apiextensions.k8s.io/v1 CustomResourceDefinition, checked at synth like the kube-apiserver checks it
 * (names, versions, structural schema, list/map types, defaults, CEL rules, subresources, printer columns, size).
 * Either built from props, or imported unchanged with `fromManifest()`/`fromFile()`.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/
 */
export class CustomResourceDefinition extends Construct implements ICustomResourceDefinition {
  /** Imports an existing CRD manifest; it is emitted unchanged (unless `stripDescriptions`) and validated. */
  public static fromManifest(
    scope: Construct,
    id: string,
    manifest: CrdManifest,
    options: CrdImportOptions = {},
  ): CustomResourceDefinition {
    if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
      throw new Error(`'manifest' must be a CustomResourceDefinition object, got ${JSON.stringify(manifest)}`);
    }
    // a private copy: the caller keeps its object, later changes to it do not reach the emitted manifest
    return CustomResourceDefinition.importOwned(scope, id, JSON.parse(JSON.stringify(manifest)), options);
  }

  /** Imports a CRD from a YAML (or JSON) file holding exactly one document. */
  public static fromFile(
    scope: Construct,
    id: string,
    file: string,
    options: CrdImportOptions = {},
  ): CustomResourceDefinition {
    let docs: unknown[];
    try {
      // as kubectl reads it (YAML 1.1: `yes` is true, `0777` is 511), so the manifest checked is the one applied
      docs = loadKubectlYaml(fs.readFileSync(file, 'utf8')).filter((d) => d !== null && d !== undefined);
    } catch (e) {
      throw new Error(`'${file}' is not valid YAML: ${(e as Error).message}`);
    }
    if (docs.length !== 1) {
      throw new Error(`'${file}' must hold exactly one CustomResourceDefinition document, got ${docs.length}`);
    }
    const manifest = docs[0];
    if (typeof manifest !== 'object' || Array.isArray(manifest)) {
      throw new Error(`'${file}' must hold a CustomResourceDefinition object, got ${JSON.stringify(manifest)}`);
    }
    // freshly parsed: nobody else holds it, no copy needed
    return CustomResourceDefinition.importOwned(scope, id, manifest as CrdManifest, options);
  }

  /** Whether `x` is a CustomResourceDefinition construct (works across copies of this library). */
  public static isCustomResourceDefinition(x: unknown): x is CustomResourceDefinition {
    return typeof x === 'object' && x !== null && (x as any)[CRD_MARKER] === true;
  }

  /** The raw path, for a manifest object nobody else will change. */
  private static importOwned(
    scope: Construct,
    id: string,
    manifest: CrdManifest,
    options: CrdImportOptions,
  ): CustomResourceDefinition {
    const names: any = (manifest.spec as any)?.names ?? {};
    const props: CustomResourceDefinitionProps & { [RAW_MANIFEST]: CrdManifest } = {
      group: (manifest.spec as any)?.group ?? '',
      kind: names.kind ?? '',
      stripDescriptions: options.stripDescriptions,
      acknowledgedWarnings: options.acknowledgedWarnings,
      [RAW_MANIFEST]: manifest,
    };
    return new CustomResourceDefinition(scope, id, props);
  }

  public readonly group: string;
  public readonly names: CrdNamesSpec;
  public readonly scope: ResourceScope;
  /** The emitted object. */
  public readonly resource: ApiObject;

  private readonly versions: CrdVersionProps[] = [];
  private conversionWebhook?: CrdConversionWebhook;
  private declaredCache?: CrdManifest;
  private strippedCache?: { manifest: CrdManifest; unmatched: string[] };
  private validated?: { of: { manifest: CrdManifest; unmatched: string[] }; errors: string[] };
  private readonly raw?: CrdManifest;
  private readonly props: CustomResourceDefinitionProps;

  constructor(scope: Construct, id: string, props: CustomResourceDefinitionProps) {
    super(scope, id);
    Object.defineProperty(this, CRD_MARKER, { value: true });
    this.props = props;
    this.raw = (props as any)[RAW_MANIFEST];

    if (this.raw) {
      const defaulted = withApiserverDefaults(this.raw);
      const spec: any = defaulted.spec ?? {};
      this.group = spec.group ?? '';
      this.names = { ...(spec.names ?? {}) };
      this.scope = spec.scope;
    } else {
      this.group = props.group;
      this.scope = props.scope ?? ResourceScope.NAMESPACED;
      // an empty or odd kind is reported by the manifest's validation (spec.names.kind), like the apiserver does
      const derive = (name: (kind: string) => string) =>
        props.kind ? Problems.of(this).recordErrors(() => name(props.kind), '') : '';
      this.names = {
        kind: props.kind,
        plural: props.plural ?? derive(pluralOf),
        singular: props.singular ?? derive(singularOf),
        listKind: props.listKind ?? `${props.kind}List`,
        ...(props.shortNames ? { shortNames: [...props.shortNames] } : {}),
        ...(props.categories ? { categories: [...props.categories] } : {}),
      };
      for (const v of props.versions ?? []) this.addVersion(v);
      this.conversionWebhook = props.conversion;
    }

    this.resource = this.raw ? this.emitRaw(id) : this.emitBuilt();
    this.node.addValidation({ validate: () => [...this.validateManifest(), ...nameConflicts(this)] });
  }

  /** Whether the definition came from `fromManifest`/`fromFile` (emitted as given) rather than from props. */
  public get imported(): boolean {
    return this.raw !== undefined;
  }

  /** Adds a version (rendered lazily, validated at synth). */
  public addVersion(version: CrdVersionProps): void {
    if (this.raw) {
      Problems.of(this).add(
        `addVersion(${JSON.stringify(version.name)}): an imported CRD is emitted as given; edit the manifest instead`,
      );
      return;
    }
    if (version.schema && (version.spec || version.status)) {
      Problems.of(this).add(
        `versions: ${JSON.stringify(version.name)} must give either 'schema' or 'spec'/'status', got both`,
      );
    }
    if (version.schema && version.validations?.length) {
      Problems.of(this).add(
        `versions: ${JSON.stringify(version.name)}.validations: only with 'spec'/'status'; with a complete 'schema', put whole-object rules in its root x-kubernetes-validations`,
      );
    }
    this.versions.push(version);
    this.declaredCache = this.strippedCache = undefined;
  }

  /**
   * Converts between versions through `webhook` (strategy Webhook). Called by the `Operator` construct for
   * the kinds its contract converts; a CRD has at most one conversion webhook.
   */
  public setConversionWebhook(webhook: CrdConversionWebhook): void {
    if (this.raw) {
      Problems.of(this).add(
        'setConversionWebhook: an imported CRD is emitted as given; edit its spec.conversion instead',
      );
      return;
    }
    const current = this.conversionWebhook;
    if (current && JSON.stringify(renderConversion(current)) !== JSON.stringify(renderConversion(webhook))) {
      Problems.of(this).add(
        `conversion: already converted by service ${current.service.namespace}/${current.service.name}, ` +
          `cannot also use ${webhook.service.namespace}/${webhook.service.name}`,
      );
      return;
    }
    this.conversionWebhook = webhook;
    this.declaredCache = this.strippedCache = undefined;
  }

  /** The conversion webhook, when one is set. */
  public get conversion(): CrdConversionWebhook | undefined {
    return this.conversionWebhook;
  }

  public get storageVersion(): string {
    // A definition without exactly one storage version is reported by its own validation at synth (on
    // this construct, once); readers such as the operator's RBAC get the first candidate meanwhile.
    const versions = this.toManifest().spec.versions ?? [];
    return (versions.find((v) => v.storage) ?? versions[0])?.name ?? '';
  }

  public apiVersionFor(version?: string): string {
    return `${this.group}/${this.versionSpec(version).name}`;
  }

  /** The schema of a version as declared (descriptions kept even when `stripDescriptions` drops them from the manifest). */
  public schemaFor(version?: string): JSONSchemaProps {
    const schema = this.versionSpec(version, false).schema?.openAPIV3Schema;
    if (!schema) {
      throw new Error(`version ${JSON.stringify(version ?? this.storageVersion)} of ${this.node.path} has no schema`);
    }
    return schema;
  }

  public toManifest(): CrdManifest {
    return this.stripped().manifest;
  }

  private versionSpec(version: string | undefined, stripped = true): CrdVersionSpec {
    const manifest = stripped ? this.toManifest() : this.declaredManifest();
    const name = version ?? this.storageVersion;
    const found = (manifest.spec.versions ?? []).find((v) => v.name === name);
    if (!found) {
      throw new Error(
        `unknown version ${JSON.stringify(name)} of ${this.node.path}, known: ${(manifest.spec.versions ?? []).map((v) => v.name).join(', ')}`,
      );
    }
    return found;
  }

  /** The manifest after description stripping; computed once per set of versions (example resources ask often). */
  private stripped(): { manifest: CrdManifest; unmatched: string[] } {
    return (this.strippedCache ??= deepFreeze(this.applyStripping(this.declaredManifest())));
  }

  /** The manifest before description stripping (frozen: callers share it). */
  private declaredManifest(): CrdManifest {
    return (this.declaredCache ??= deepFreeze(this.renderDeclared()));
  }

  private renderDeclared(): CrdManifest {
    if (this.raw) return this.raw; // a private object, frozen by declaredManifest()
    const onlyVersion = this.versions.length === 1;
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {
        name: `${this.names.plural}.${this.group}`,
        ...(this.props.annotations ? { annotations: { ...this.props.annotations } } : {}),
        ...(this.props.labels ? { labels: { ...this.props.labels } } : {}),
      },
      spec: {
        group: this.group,
        names: this.names,
        scope: this.scope,
        versions: this.versions.map((v) => renderVersion(v, onlyVersion, this.props.description)),
        ...(this.conversionWebhook ? { conversion: renderConversion(this.conversionWebhook) } : {}),
      },
    };
  }

  private applyStripping(manifest: CrdManifest): { manifest: CrdManifest; unmatched: string[] } {
    const selectors = this.props.stripDescriptions ?? [];
    const unmatched: string[] = [];
    const versions = [...(manifest.spec?.versions ?? [])].map((v) => ({ ...v }));
    for (const selector of selectors) {
      let matched = false;
      versions.forEach((v, i) => {
        const schema = v.schema?.openAPIV3Schema;
        if (!schema) return;
        const stripped = stripDescriptions(schema, selector);
        if (stripped === undefined) return;
        matched = true;
        versions[i] = { ...v, schema: { ...v.schema, openAPIV3Schema: stripped } };
      });
      if (!matched) unmatched.push(selector);
    }
    if (selectors.length === 0) return { manifest, unmatched };
    return { manifest: { ...manifest, spec: { ...manifest.spec, versions } }, unmatched };
  }

  private emitBuilt(): ApiObject {
    return new ApiObject(this, 'Resource', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {
        name: `${this.names.plural}.${this.group}`,
        annotations: this.props.annotations ? { ...this.props.annotations } : undefined,
        labels: this.props.labels ? { ...this.props.labels } : undefined,
      },
      spec: Lazy.any({ produce: () => this.toManifest().spec }),
    });
  }

  /** Imported manifests are emitted exactly (see ManifestApiObject). */
  private emitRaw(id: string): ApiObject {
    return new ManifestApiObject(this, 'Resource', this.toManifest() as unknown as Record<string, unknown>, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: id,
    });
  }

  private validateManifest(): string[] {
    const stripped = this.stripped();
    // cdk8s validates the whole app once per chart it synthesizes: check each rendered manifest once
    if (this.validated?.of === stripped) return this.validated.errors;
    const { manifest, unmatched } = stripped;
    // what the Schema builders found in their arguments, read from the declared nodes (stripping copies them)
    // (an imported manifest went through YAML or JSON, which carry no builder problems: no walk)
    const issues: Issue[] = this.raw
      ? []
      : (this.declaredManifest().spec.versions ?? []).flatMap((v, i) =>
          schemaProblems(v.schema?.openAPIV3Schema, `spec.versions[${i}].schema.openAPIV3Schema`),
        );
    // in an app with a Kubernetes range, the manifest is checked as the newest version checks it, and what each
    // version of the range lacks compared with it (selectableFields on 1.28, quantity() in rules on 1.28, semver() on
    // 1.32, …) is reported with the versions named; outside such an app, as the default version checks it
    const versions = targetVersions(this);
    const memo = new SchemaCheckMemo(); // both check the schemas and compile the newest version's rules: once
    const checked = validateCrdManifestWith(
      manifest,
      versions ? KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1] : DEFAULT_KUBERNETES_VERSION,
      memo,
    );
    // one mistake once: an older version's other wording of the newest's error goes on the newest's line
    issues.push(...(versions ? crdIssuesForVersions(manifest, versions, memo, checked) : checked));
    (manifest.spec?.versions ?? []).forEach((v, i) =>
      (v.additionalPrinterColumns ?? []).forEach((c, j) => {
        // the apiserver's table convertor keeps the first result of a column's JSONPath (tableconvertor.go: results[0][0])
        if (/\[\*\]|\.\.|\[[^\]]*[,:][^\]]*\]/.test(c.jsonPath)) {
          issues.push({
            path: `spec.versions[${i}].additionalPrinterColumns[${j}].jsonPath`,
            severity: 'warning',
            value: c.jsonPath,
            message:
              `column ${JSON.stringify(c.name)} selects several values, and kubectl get shows only the first (the apiserver's table keeps one); ` +
              'show one value instead (an index, a filter such as [?(@.type=="Ready")], or a count the controller writes to status)',
          });
        }
      }),
    );
    for (const selector of unmatched) {
      issues.push({
        path: 'stripDescriptions',
        message: 'Invalid value: names no schema node in any version',
        value: selector,
      });
    }
    const acknowledged = this.props.acknowledgedWarnings ?? [];
    const warnings = warningsOf(issues);
    const versionNames = (manifest.spec?.versions ?? []).map((v) => v.name);
    for (const w of formatCrdIssues(
      warnings.filter((unacked) => !acknowledged.some((a) => a.path === unacked.path)),
      versionNames,
    )) {
      Warnings.of(this).add(w);
    }
    for (const a of acknowledged) {
      if (!warnings.some((w) => w.path === a.path)) {
        Warnings.of(this).add(
          `acknowledgedWarnings: ${JSON.stringify(a.path)} matches no warning (stale? the reason was: ${a.reason})`,
        );
      }
    }
    const errors = formatCrdIssues(errorsOf(issues), versionNames);
    this.validated = { of: stripped, errors };
    return errors;
  }
}

function renderVersion(v: CrdVersionProps, onlyVersion: boolean, description?: string): CrdVersionSpec {
  const schema = v.schema ?? wrapSchema(v.spec, v.status, description, v.validations);
  const statusEnabled = v.subresources?.status ?? schema.properties?.status !== undefined;
  const subresources =
    statusEnabled || v.subresources?.scale
      ? {
          ...(statusEnabled ? { status: {} } : {}),
          ...(v.subresources?.scale ? { scale: { ...v.subresources.scale } } : {}),
        }
      : undefined;
  const columns: PrinterColumnSpec[] | undefined = v.printerColumns?.map((c) => ({ ...c }));
  const out: Record<string, unknown> = {
    name: v.name,
    served: v.served ?? true,
    storage: v.storage ?? onlyVersion,
    deprecated: v.deprecated,
    deprecationWarning: v.deprecationWarning,
    schema: { openAPIV3Schema: schema },
    subresources,
    additionalPrinterColumns: columns && columns.length > 0 ? columns : undefined,
    selectableFields:
      v.selectableFields && v.selectableFields.length > 0
        ? v.selectableFields.map((jsonPath) => ({ jsonPath }))
        : undefined,
  };
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out as unknown as CrdVersionSpec;
}

function renderConversion(w: CrdConversionWebhook): NonNullable<CrdManifest['spec']['conversion']> {
  return {
    strategy: 'Webhook',
    webhook: {
      clientConfig: {
        service: {
          namespace: w.service.namespace,
          name: w.service.name,
          path: w.service.path ?? '/convert',
          port: w.service.port ?? 443,
        },
        ...(w.caBundle ? { caBundle: w.caBundle } : {}),
      },
      conversionReviewVersions: [...(w.conversionReviewVersions ?? ['v1'])],
    },
  };
}

/** The root object schema around `spec` and `status`, as controller-gen writes it. */
// The texts Kubernetes' own types (and controller-gen) give the common fields, for `kubectl explain`.
const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

function wrapSchema(
  spec?: JSONSchemaProps,
  status?: JSONSchemaProps,
  description?: string,
  validations?: readonly ValidationRule[],
): JSONSchemaProps {
  const properties: Record<string, JSONSchemaProps> = {
    apiVersion: { type: 'string', description: API_VERSION_DESCRIPTION },
    kind: { type: 'string', description: KIND_DESCRIPTION },
    metadata: { type: 'object' },
  };
  if (spec) properties.spec = spec;
  if (status) properties.status = status;
  // metadata stays `{ type: object }`: the apiserver refuses any other property under it, and gives the rules
  // name and generateName itself
  return {
    ...(description ? { description } : {}),
    type: 'object',
    properties,
    ...(validations?.length ? { 'x-kubernetes-validations': [...validations] } : {}),
  };
}

/** Every CustomResourceDefinition in a construct tree. @internal */
export function findCustomResourceDefinitions(root: IConstruct): CustomResourceDefinition[] {
  return root.node.findAll().filter(CustomResourceDefinition.isCustomResourceDefinition);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    // imported manifests have hundreds of thousands of nodes: no array of values per node
    if (Array.isArray(value)) {
      for (const v of value) if (typeof v === 'object') deepFreeze(v);
    } else {
      for (const k of Object.keys(value)) {
        const v = (value as Record<string, unknown>)[k];
        if (typeof v === 'object') deepFreeze(v);
      }
    }
  }
  return value;
}
