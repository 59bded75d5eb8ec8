import { ApiObject, ApiObjectMetadata } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { findDefinitions } from './_find-definition';
import { checkQuantityFields } from './quantity-fields';
import { writtenNullWarnings } from './written-nulls';
import { errorsOf, Issue, warningsOf } from '../apimachinery/issue';
import {
  customResourceModelOf,
  customResourceVerdictModelOf,
  DEFAULT_KUBERNETES_VERSION,
  KubernetesVersion,
} from '../apimachinery/kubernetes-versions';
import { validateCustomResource } from '../apiserver/value-validation/custom-resource';
import { reachesNewerChecks } from '../apiserver/value-validation/newer-checks';
import { ICustomResourceDefinition } from '../crd/icustom-resource-definition';
import { Problems } from '../synth-metadata/problems';
import { perVersionIssues, targetVersions } from '../synth-metadata/target-versions';
import { Warnings } from '../synth-metadata/warnings';

/**
 * The state of a resource before an update, for checking transition rules (`oldSelf`).
 * Fields left out are taken from the resource itself (so `metadata` usually stays the same).
 */
export interface CustomResourcePrevious<Spec = unknown, Status = unknown> {
  /** @default - the resource's own metadata */
  readonly metadata?: ApiObjectMetadata;
  /** @default - no spec */
  readonly spec?: Spec;
  /** @default - no status */
  readonly status?: Status;
  /** Other top-level fields of the old object. */
  readonly [field: string]: unknown;
}

/**
 * The part of the props a typed subclass exposes (apiVersion, kind and the CRD are fixed by the subclass).
 */
export interface TypedCustomResourceProps<Spec = unknown, Status = unknown> {
  /** Object metadata. `name` (or `generateName`) must be a DNS-1123 subdomain. */
  readonly metadata: ApiObjectMetadata;
  /** @default - no spec */
  readonly spec?: Spec;
  /**
   * Status; note the apiserver drops it on create when the CRD enables the status subresource.
   * @default - no status
   */
  readonly status?: Status;
  /**
   * The resource as it was before an update: when given, transition rules (`oldSelf`) are checked
   * on the pair previous → this resource, as `kubectl apply` of this object over the previous one would.
   * @default - the resource is checked as a create only
   */
  readonly previous?: CustomResourcePrevious<Spec, Status>;
}

/**
 * Props of `CustomResource`. Besides the named props, any other top-level field of the object
 * (e.g. `data` for kinds without a spec) may be given and is emitted and validated as-is.
 */
export interface CustomResourceProps<Spec = unknown, Status = unknown> extends TypedCustomResourceProps<Spec, Status> {
  /**
   * The definition of the resource's kind.
   * @default - the CustomResourceDefinition in the same app whose group and kind match `apiVersion` and `kind`
   */
  readonly crd?: ICustomResourceDefinition;
  /**
   * `<group>/<version>` of the resource.
   * @default - `crd.apiVersionFor(version)` (required when `crd` is not given)
   */
  readonly apiVersion?: string;
  /**
   * Kind of the resource.
   * @default - `crd.names.kind` (required when `crd` is not given)
   */
  readonly kind?: string;
  /**
   * Version of the CRD to write the resource in; must be served.
   * @default - the version in `apiVersion`, else the storage version
   */
  readonly version?: string;
  /** Other top-level fields. */
  readonly [field: string]: unknown;
}

const NAMED_PROPS = new Set(['crd', 'apiVersion', 'kind', 'version', 'metadata', 'spec', 'status', 'previous']);

const CUSTOM_RESOURCE_MARKER = Symbol.for('cdk8s-operator.CustomResource');

/**
 * An example (or real) custom resource, checked at synth against its CustomResourceDefinition
 * exactly like the apiserver would check it on create (and on update, with `previous`):
 * metadata, scope, served version, structural schema with defaults applied, unknown fields
 * (refused here, silently pruned by the apiserver), list-type uniqueness and every CEL rule.
 * The emitted object is the one given (defaults are applied only for validation).
 *
 * Typed subclasses (generated into `imports/<group>.ts`) fix apiVersion and kind:
 *
 * ```ts
 * export interface SampleDbProps extends TypedCustomResourceProps<SampleDbSpec, SampleDbStatus> {}
 * export class SampleDb extends CustomResource<SampleDbSpec, SampleDbStatus> {
 *   public static readonly GVK = { apiVersion: 'database.example.com/v1alpha1', kind: 'SampleDB' } as const;
 *   constructor(scope: Construct, id: string, props: SampleDbProps) {
 *     super(scope, id, { ...props, ...SampleDb.GVK });
 *   }
 * }
 * ```
 * The definition is then found in the app by group and kind, so the generated file needs no
 * reference to the CRD construct.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation
 */
export class CustomResource<Spec = unknown, Status = unknown> extends Construct {
  /** Whether `x` is a CustomResource construct (works across copies of this library). */
  public static isCustomResource(x: unknown): x is CustomResource {
    return typeof x === 'object' && x !== null && (x as any)[CUSTOM_RESOURCE_MARKER] === true;
  }

  /** The emitted object (child id `Resource`). */
  public readonly apiObject: ApiObject;
  public readonly apiVersion: string;
  public readonly kind: string;
  /** The spec as given (without defaults). */
  public readonly spec?: Spec;
  /** The status as given. */
  public readonly status?: Status;

  private readonly props: CustomResourceProps<Spec, Status>;

  constructor(scope: Construct, id: string, props: CustomResourceProps<Spec, Status>) {
    super(scope, id);
    Object.defineProperty(this, CUSTOM_RESOURCE_MARKER, { value: true });
    this.props = props;
    const problems = Problems.of(this);
    if (!props.crd && (!props.apiVersion || !props.kind)) {
      problems.add(
        `'apiVersion' and 'kind' are required when 'crd' is not given, got apiVersion ${JSON.stringify(props.apiVersion)} and kind ${JSON.stringify(props.kind)}`,
      );
    }
    if (props.apiVersion !== undefined && !/^[^/]+\/[^/]+$/.test(props.apiVersion)) {
      problems.add(
        `'apiVersion' must be '<group>/<version>' for a custom resource, got ${JSON.stringify(props.apiVersion)}`,
      );
    }
    if (props.apiVersion && props.version && props.apiVersion.split('/')[1] !== props.version) {
      problems.add(
        `'version' ${JSON.stringify(props.version)} does not match 'apiVersion' ${JSON.stringify(props.apiVersion)}`,
      );
    }
    this.apiVersion =
      props.apiVersion ?? problems.recordErrors(() => props.crd?.apiVersionFor(props.version) ?? '', '');
    this.kind = props.kind ?? props.crd?.names.kind ?? '';
    this.spec = props.spec;
    this.status = props.status;

    this.apiObject = new ApiObject(this, 'Resource', {
      ...this.extraFields(props),
      apiVersion: this.apiVersion,
      kind: this.kind,
      metadata: props.metadata,
      ...(props.spec !== undefined ? { spec: props.spec } : {}),
      ...(props.status !== undefined ? { status: props.status } : {}),
    });
    this.node.addValidation({ validate: () => this.validateResource() });
  }

  /** API group of the resource. */
  public get group(): string {
    return this.apiVersion.split('/')[0];
  }

  /** Version of the resource (the part of apiVersion after the slash). */
  public get version(): string {
    return this.apiVersion.split('/')[1];
  }

  /**
   * The definition this resource is checked against: `crd`, or the single matching definition in the app.
   * Throws when there is none or more than one.
   */
  public get definition(): ICustomResourceDefinition {
    if (this.props.crd) return this.props.crd;
    const found = findDefinitions(this, this.group, this.kind);
    if (found.length === 0) {
      throw new Error(
        `no CustomResourceDefinition for kind ${this.kind} in group ${this.group} found in the app: ` +
          "add one (new CustomResourceDefinition(...) or CustomResourceDefinition.fromFile(...)) or pass 'crd'",
      );
    }
    if (found.length > 1) {
      throw new Error(
        `${found.length} CustomResourceDefinitions for kind ${this.kind} in group ${this.group} found in the app ` +
          `(${found.map((d) => (d as IConstruct).node.path).join(', ')}): pass 'crd'`,
      );
    }
    return found[0];
  }

  /** The object as it will be emitted. */
  public toJson(): Record<string, unknown> {
    return this.apiObject.toJson();
  }

  /**
   * Every problem the apiserver of `kubernetesVersion` would report for this resource, as issues with field paths,
   * in that version's wording. Subclasses may extend it (call `super.checkResource(kubernetesVersion)`) to add
   * kind-specific checks.
   */
  protected checkResource(kubernetesVersion: KubernetesVersion = DEFAULT_KUBERNETES_VERSION): Issue[] {
    let crd: ICustomResourceDefinition;
    try {
      crd = this.definition;
    } catch (e) {
      return [{ path: 'apiVersion', message: (e as Error).message, value: this.apiVersion }];
    }
    const issues: Issue[] = [];
    if (this.group !== crd.group) {
      issues.push({
        path: 'apiVersion',
        message: `group must be ${JSON.stringify(crd.group)} (the CRD's group)`,
        value: this.apiVersion,
      });
    }
    if (this.kind !== crd.names.kind) {
      issues.push({
        path: 'kind',
        message: `must be ${JSON.stringify(crd.names.kind)} (the CRD's kind)`,
        value: this.kind,
      });
    }
    const versions = crd.toManifest().spec.versions ?? [];
    const version = versions.find((v) => v.name === this.version);
    if (!version) {
      issues.push({
        path: 'apiVersion',
        message: `no matches for kind "${this.kind}" in version "${this.apiVersion}": the CRD has versions ${versions.map((v) => v.name).join(', ')}`,
        value: this.apiVersion,
      });
      return issues;
    }
    if (!version.served) {
      issues.push({
        path: 'apiVersion',
        message: `version ${JSON.stringify(this.version)} is not served by the CRD`,
        value: this.apiVersion,
      });
    }
    const object = this.toJson();
    // the given metadata too: cdk8s silently drops fields it does not know (a typo like `lables`)
    const metadata = { ...this.props.metadata, ...(object.metadata ?? {}) } as Record<string, unknown>;
    // with the status subresource the apiserver deletes status on create (and keeps the old one on update),
    // so it is neither stored nor validated
    const statusSubresource = version.subresources?.status !== undefined;
    if (this.props.status !== undefined && statusSubresource) {
      issues.push({
        path: 'status',
        severity: 'warning',
        message:
          'the apiserver drops status on create because the CRD enables the status subresource (so it is not validated either)',
      });
    }
    const schema = crd.schemaFor(this.version);
    const def = { scope: crd.scope, kind: this.kind, version: { ...version, schema: { openAPIV3Schema: schema } } };
    const previousObject = this.previousObject(object);
    if (previousObject) {
      for (const i of validateCustomResource(def, previousObject, { kubernetesVersion }).issues) {
        issues.push({ ...i, path: `previous.${i.path}` });
      }
    }
    const validated = validateCustomResource(
      def,
      { ...object, metadata },
      { oldObject: previousObject, kubernetesVersion },
    );
    issues.push(...validated.issues);
    // a value the apiserver already refuses (a pattern, a type) is one problem: not reported again as no quantity
    const refused = new Set(validated.issues.filter((i) => i.severity !== 'warning').map((i) => i.path));
    issues.push(...checkQuantityFields(schema, validated.value).filter((q) => !refused.has(q.path)));
    // what the user wrote, before cdk8s drops its null fields
    const written = {
      ...this.extraFields(this.props),
      spec: this.props.spec,
      ...(statusSubresource ? {} : { status: this.props.status }),
    };
    issues.push(...writtenNullWarnings(schema, written, ''));
    return issues;
  }

  /**
   * The resource checked against every version of the app's range: an issue every version reports as it is; one that
   * only some versions report, or word otherwise, in their wording and naming them (`on Kubernetes 1.28, 1.29: …`).
   * Versions that check alike are checked once; a resource without issues on one version of each verdict model is
   * without issues on all of them (the other changes only word the issues found).
   */
  private validateResource(): string[] {
    if (!this.apiVersion || !this.kind) return []; // reported when constructed
    const versions = targetVersions(this) ?? [DEFAULT_KUBERNETES_VERSION];
    const byModel = new Map<string, Issue[]>();
    const issuesOn = (v: KubernetesVersion): Issue[] => {
      const model = customResourceModelOf(v);
      let issues = byModel.get(model);
      if (!issues) byModel.set(model, (issues = this.checkResource(v)));
      return issues;
    };
    try {
      // one version of each verdict model; the others only where the resource reaches what they check otherwise
      const [first, ...others] = [...new Map(versions.map((v) => [customResourceVerdictModelOf(v), v])).values()];
      if (
        issuesOn(first).length === 0 &&
        (others.length === 0 || !this.reachesNewerChecks() || others.every((v) => issuesOn(v).length === 0))
      ) {
        return [];
      }
      for (const w of perVersionIssues(versions, (v) => warningsOf(issuesOn(v)))) Warnings.of(this).add(w);
      return perVersionIssues(versions, (v) => errorsOf(issuesOn(v)));
    } catch (e) {
      return [(e as Error).message]; // no definition to check against
    }
  }

  /** Whether the resource (or its previous object) reaches a check whose verdict changed between versions. */
  private reachesNewerChecks(): boolean {
    const schema = this.definition.schemaFor(this.version);
    const json = this.toJson(); // cdk8s resolves the whole object on each call
    const object = { ...json, metadata: { ...this.props.metadata, ...(json.metadata ?? {}) } };
    return (
      reachesNewerChecks(schema, object) ||
      (this.props.previous !== undefined && reachesNewerChecks(schema, this.props.previous))
    );
  }

  /** The old object for transition rules: `previous` over the resource's own apiVersion, kind and metadata. */
  private previousObject(current: Record<string, unknown>): Record<string, unknown> | undefined {
    const prev = this.props.previous;
    if (!prev) return undefined;
    return {
      ...prev,
      apiVersion: current.apiVersion,
      kind: current.kind,
      metadata: prev.metadata ?? current.metadata,
    };
  }

  private extraFields(props: CustomResourceProps<Spec, Status>): Record<string, unknown> {
    return Object.fromEntries(Object.entries(props).filter(([k, v]) => !NAMED_PROPS.has(k) && v !== undefined));
  }
}
