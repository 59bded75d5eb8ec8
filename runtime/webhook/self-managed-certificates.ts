/**
 * Webhook certificates without cert-manager: the leader keeps a CA and a serving certificate in the
 * operator's certificate Secret, injects the CA bundle into the operator's own webhook
 * configurations (and conversion CRDs), and rotates both before they expire with an overlap so that
 * no admission request fails during a rotation. Every replica serves from the Secret
 * (`SecretCertificateSource`). Kyverno's renewer is the model (new CA appended to the bundle before the
 * old one expires); open-policy-agent/cert-controller and knative's certificates rotate without overlap.
 *
 * Secret (`Opaque`, created empty by the chart, so RBAC needs only `get`/`update` by name):
 * `ca.crt`/`ca.key` (the CA that signs now), `ca-bundle.crt` (every CA still trusted: injected),
 * `tls.crt`/`tls.key` (served), and the annotation `webhook.cdk8s-operator.io/ca-bundle-injected`
 * (`<sha256 of the bundle>@<time>`: when that bundle was last written into every target).
 *
 * One round (`reconcile`, at start and every `checkIntervalMs` on the leader), level-triggered:
 * 1. No CA, the CA in its last `renewBeforeFraction` of life, or a rotation requested with the annotation
 *    `webhook.cdk8s-operator.io/rotate` (removed in the same write): make a new CA and append it to the
 *    bundle (expired CAs leave the bundle). On a fresh Secret the first serving certificate is issued
 *    at once (nothing to overlap with).
 * 2. Inject the bundle into every target whose caBundle differs; record when this bundle was injected (a
 *    bundle that only lost expired CAs keeps the time of the one before: the signing CA was trusted then).
 * 3. Issue a new serving certificate when there is none, when its names differ from the wanted ones,
 *    when it is in the last `renewBeforeFraction` of its life, or when it was signed by an older CA —
 *    but a certificate of a CA the apiserver may not trust yet (bundle injected less than
 *    `caPropagationMs` ago) waits: the apiserver reads webhook configurations through an informer,
 *    and every replica needs a reload interval to pick up the Secret.
 * Writes are optimistic (`resourceVersion`): a conflict ends the round, the next one starts over.
 * Steady state: one GET of the Secret and one per target, no write.
 *
 * Caveats: only the leader may run this (`manager.elected`); with several writers the Secret's
 * resourceVersion makes all but one fail each round, still safe.
 */
import { createHash, KeyObject } from 'node:crypto';
import type { KubeClient } from '../client';
import { isConflict } from '../errors';
import type { Logger } from '../log';
import { silentLogger } from '../log';
import type { KubeObject } from '../resource';
import { CaBundleTarget, INJECTED_ANNOTATION, injectCaBundle, ROTATE_ANNOTATION } from './ca-injection';
import {
  createCertificateAuthority,
  createServingCertificate,
  generateCertificateKey,
  KeyPair,
  parseCertificates,
} from './certificates';
import { SECRET_REF } from './secret-certificate-source';

const DAY = 86_400_000;
/** Rounds never follow each other closer than this (a due time already past renews in that round). */
const MIN_ROUND_GAP_MS = 250;
/** Keys made ahead: a round issues at most a CA and a serving certificate. */
const SPARE_KEYS = 2;
export { INJECTED_ANNOTATION, ROTATE_ANNOTATION };

/** Options of {@link SelfManagedCertificates}. */
export interface SelfManagedCertificatesOptions {
  readonly client: KubeClient;
  /** The operator's namespace (the Secret's). */
  readonly namespace: string;
  readonly secretName: string;
  /** subjectAltNames of the serving certificate: the webhook Service's DNS names. */
  readonly dnsNames: readonly string[];
  /** IP subjectAltNames (envtest: `127.0.0.1`). @default [] */
  readonly ipAddresses?: readonly string[];
  /** Objects whose caBundle the operator owns. @default [] */
  readonly targets?: readonly CaBundleTarget[];
  /** @default 365 days */
  readonly caValidityMs?: number;
  /** @default 90 days */
  readonly servingValidityMs?: number;
  /** Renew a CA or certificate when this fraction of its validity is left. @default 1/3 */
  readonly renewBeforeFraction?: number;
  /** How long a newly injected CA must have been trusted before a certificate it signed is served. @default 30000 */
  readonly caPropagationMs?: number;
  /** @default 60000 */
  readonly checkIntervalMs?: number;
  /** Called after the Secret was written (e.g. the leader reloads its own source at once). */
  readonly onSecretWritten?: () => void | Promise<void>;
  /** @default - silent */
  readonly logger?: Logger;
  /** Clock (tests). @default - Date.now */
  readonly now?: () => number;
}

interface State {
  ca?: KeyPair;
  bundle: string;
  serving?: KeyPair;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s: string | undefined) => (s ? Buffer.from(s, 'base64').toString('utf8') : undefined);

/** What one round did (for logs and tests). */
export interface RotationRound {
  readonly newCa: boolean;
  readonly newServing: boolean;
  readonly injected: readonly string[];
  /** Why a serving certificate is due but waits (CA propagation). */
  readonly waiting?: string;
  /** When the next round has something to do at the latest: the propagation wait ends, or the CA or serving certificate becomes due. */
  readonly nextDueInMs: number;
}

/** See module docs. */
export class SelfManagedCertificates {
  private readonly logger: Logger;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  /** Starts so far, and the one `stop()` ended: a leader runnable is started again on re-election. */
  private runs = 0;
  private stoppedRun = 0;
  private running: Promise<unknown> | undefined;
  /** The last round's error, if it failed (readiness of the leader shows it). */
  public lastError: string | undefined;
  /** When the next round has something to do (this.now() clock), from the last round's start. */
  private nextDueAt = Infinity;
  /**
   * RSA keys in the making on the thread pool, taken by the rounds that issue: a prime search takes 50 ms to seconds
   * on a loaded machine (a round that made its two keys itself took up to 10 s there, and a short-lived certificate
   * lapsed), and made on the event loop it would hold up the webhook server's requests too.
   */
  private readonly spareKeys: Promise<KeyObject>[] = [];

  constructor(private readonly options: SelfManagedCertificatesOptions) {
    if (options.dnsNames.length + (options.ipAddresses?.length ?? 0) === 0) {
      throw new Error('SelfManagedCertificates: dnsNames must name the webhook Service');
    }
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
  }

  /** Runs a round now and then every `checkIntervalMs` until `stop()`. */
  async start(): Promise<void> {
    const run = ++this.runs;
    this.fillSpareKeys();
    await this.runOnce();
    // Stopped (or stopped and started again) during the first round: this start schedules nothing.
    if (run !== this.runs || this.stoppedRun === run) return;
    const tick = () => {
      // After a failed round (a target not created yet, a conflict) the next comes sooner.
      // A round that waits for CA propagation, or a certificate due before the next interval, brings the next
      // round forward: with the interval alone a short-lived serving certificate could expire while waiting.
      // The due time counts from the last round's start, not its end: on a loaded machine a round (RSA keys,
      // three writes) takes seconds, and counting from its end made every round that much later.
      const dueIn = Math.max(this.nextDueAt - this.now(), MIN_ROUND_GAP_MS);
      const interval = Math.min(this.options.checkIntervalMs ?? 60_000, dueIn);
      this.timer = setTimeout(
        () => {
          void this.runOnce().finally(() => {
            if (this.timer) tick();
          });
        },
        this.lastError ? Math.min(Math.max(interval, 1_000), 5_000) : interval,
      );
      this.timer.unref?.();
    };
    tick();
  }

  /** Stops the rounds (waits for the one running). */
  async stop(): Promise<void> {
    this.stoppedRun = this.runs;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async runOnce(): Promise<void> {
    const startedAt = this.now();
    const round = this.reconcile().then(
      (r) => {
        this.lastError = undefined;
        this.nextDueAt = startedAt + r.nextDueInMs;
        if (r.newCa || r.newServing || r.injected.length) this.logger.info('webhook certificates reconciled', { ...r });
      },
      (err) => {
        this.lastError = (err as Error).message;
        if (isConflict(err)) this.logger.info('webhook certificate Secret changed meanwhile, next round retries');
        else this.logger.error('webhook certificate round failed', { error: err });
      },
    );
    this.running = round;
    await round;
  }

  /** One round (see module docs). Throws API errors (404 when the chart's Secret is missing). */
  async reconcile(): Promise<RotationRound> {
    const { client, namespace, secretName } = this.options;
    const now = this.now();
    const fraction = this.options.renewBeforeFraction ?? 1 / 3;
    let secret: KubeObject;
    try {
      secret = await client.get(SECRET_REF, secretName, namespace);
    } catch (err) {
      throw Object.assign(
        new Error(
          `webhook certificate Secret ${namespace}/${secretName}: ${(err as Error).message} (the chart creates it empty; this operator may only get and update it)`,
        ),
        { cause: err, code: (err as { code?: number }).code },
      );
    }
    const state = this.read(secret);
    const bundleBefore = state.bundle;
    let newCa = false;
    let newServing = false;

    // 1. The CA.
    const caCert = state.ca ? parseCertificates(state.ca.cert)[0] : undefined;
    const forced = secret.metadata?.annotations?.[ROTATE_ANNOTATION] !== undefined;
    if (!caCert || forced || due(caCert.validFrom, caCert.validTo, now, fraction)) {
      const ca = createCertificateAuthority({
        validityMs: this.options.caValidityMs ?? 365 * DAY,
        now: new Date(now),
        commonName: `${secretName}.${namespace}`,
        privateKey: await this.takeKey(),
      });
      const fresh = !state.serving;
      state.ca = ca;
      state.bundle = fresh ? ca.cert : stillValid(state.bundle, now) + ca.cert;
      if (fresh) {
        state.serving = await this.issue(ca, now);
        newServing = true;
      }
      newCa = true;
    } else {
      const pruned = stillValid(state.bundle, now);
      if (!pruned.includes(state.ca!.cert.trim())) state.bundle = pruned + state.ca!.cert;
      else state.bundle = pruned;
    }
    if (newCa || state.bundle !== this.read(secret).bundle || newServing) {
      secret = await this.write(secret, state, undefined, forced);
    }

    // 2. Inject the bundle.
    const injected: string[] = [];
    for (const target of this.options.targets ?? []) {
      if (await injectCaBundle(client, target, state.bundle)) injected.push(`${target.kind}/${target.name}`);
    }
    const hash = hashOf(state.bundle);
    const [recordedHash, recordedAt] = (secret.metadata?.annotations?.[INJECTED_ANNOTATION] ?? '').split('@');
    // A bundle that only lost expired CAs trusts the signing CA since the bundle before it was injected:
    // pruning must not restart the wait of a serving certificate for the CA's propagation.
    const onlyPruned = !newCa && recordedHash === hashOf(bundleBefore) && bundleBefore.includes(state.ca!.cert.trim());
    const recorded = recordedHash === hash || onlyPruned ? Date.parse(recordedAt) : NaN;
    const injectedAt = Number.isNaN(recorded) ? now : recorded;
    if (recordedHash !== hash || Number.isNaN(recorded)) {
      secret = await this.write(secret, state, `${hash}@${new Date(injectedAt).toISOString()}`);
    }

    // 3. The serving certificate.
    let waiting: string | undefined;
    const served = state.serving ? parseCertificates(state.serving.cert)[0] : undefined;
    const signer = parseCertificates(state.ca!.cert)[0];
    const wrongNames =
      served && !sameNames(served.subjectAltName ?? '', this.options.dnsNames, this.options.ipAddresses ?? []);
    const oldCa = served && !(served.checkIssued(signer) && served.verify(signer.publicKey));
    if (!newServing && (!served || wrongNames || oldCa || due(served.validFrom, served.validTo, now, fraction))) {
      const trustedFor = now - injectedAt;
      const propagation = this.options.caPropagationMs ?? 30_000;
      const newlyTrusted = served && oldCa && trustedFor < propagation;
      if (newlyTrusted && new Date(served.validTo).getTime() > now) {
        waiting = `serving certificate of the new CA waits ${propagation - trustedFor} ms more for the CA bundle to propagate`;
      } else {
        state.serving = await this.issue(state.ca!, now);
        newServing = true;
        secret = await this.write(secret, state, undefined);
      }
    }
    const servedNow = parseCertificates(state.serving!.cert)[0];
    const nextDueInMs = Math.max(
      0,
      Math.min(
        dueAt(servedNow.validFrom, servedNow.validTo, fraction) - now,
        dueAt(signer.validFrom, signer.validTo, fraction) - now,
        waiting ? (this.options.caPropagationMs ?? 30_000) - (now - injectedAt) : Infinity,
      ),
    );
    return { newCa, newServing, injected, ...(waiting ? { waiting } : {}), nextDueInMs };
  }

  private async issue(ca: KeyPair, now: number): Promise<KeyPair> {
    return createServingCertificate(ca, {
      dnsNames: this.options.dnsNames,
      ipAddresses: this.options.ipAddresses,
      validityMs: this.options.servingValidityMs ?? 90 * DAY,
      now: new Date(now),
      privateKey: await this.takeKey(),
    });
  }

  private takeKey(): Promise<KeyObject> {
    this.fillSpareKeys();
    const key = this.spareKeys.shift()!;
    this.fillSpareKeys();
    return key;
  }

  private fillSpareKeys(): void {
    while (this.spareKeys.length < SPARE_KEYS) {
      const key = generateCertificateKey();
      // handled here so that a spare nobody takes cannot crash the process; the round that takes it sees the error
      key.catch(() => undefined);
      this.spareKeys.push(key);
    }
  }

  private read(secret: KubeObject): State {
    const data = (secret.data ?? {}) as Record<string, string>;
    const caCert = unb64(data['ca.crt']);
    const caKey = unb64(data['ca.key']);
    const cert = unb64(data['tls.crt']);
    const key = unb64(data['tls.key']);
    return {
      ca: caCert && caKey ? { cert: caCert, key: caKey } : undefined,
      bundle: unb64(data['ca-bundle.crt']) ?? '',
      serving: cert && key ? { cert, key } : undefined,
    };
  }

  private async write(
    secret: KubeObject,
    state: State,
    injectedAnnotation: string | undefined,
    rotated = false,
  ): Promise<KubeObject> {
    const annotations = { ...(secret.metadata?.annotations ?? {}) };
    if (rotated) delete annotations[ROTATE_ANNOTATION];
    if (injectedAnnotation) annotations[INJECTED_ANNOTATION] = injectedAnnotation;
    const data: Record<string, string> = { ...((secret.data ?? {}) as Record<string, string>) };
    if (state.ca) Object.assign(data, { 'ca.crt': b64(state.ca.cert), 'ca.key': b64(state.ca.key) });
    data['ca-bundle.crt'] = b64(state.bundle);
    if (state.serving) Object.assign(data, { 'tls.crt': b64(state.serving.cert), 'tls.key': b64(state.serving.key) });
    const written = await this.options.client.replace({
      ...secret,
      metadata: { ...secret.metadata, annotations },
      data,
    });
    await this.options.onSecretWritten?.();
    return written;
  }
}

/** The bundle's digest recorded in the injected annotation. */
function hashOf(bundle: string): string {
  return createHash('sha256').update(bundle).digest('hex').slice(0, 16);
}

/** Whether a certificate is in the last `fraction` of its validity (or expired). */
function due(validFrom: string, validTo: string, now: number, fraction: number): boolean {
  return now >= dueAt(validFrom, validTo, fraction);
}

/** When a certificate enters the last `fraction` of its validity. */
function dueAt(validFrom: string, validTo: string, fraction: number): number {
  const from = new Date(validFrom).getTime();
  const to = new Date(validTo).getTime();
  return to - (to - from) * fraction;
}

/** The PEM bundle without expired or unparsable certificates. */
function stillValid(bundle: string, now: number): string {
  let certs: ReturnType<typeof parseCertificates> = [];
  try {
    certs = parseCertificates(bundle);
  } catch {
    return '';
  }
  return certs
    .filter((c) => new Date(c.validTo).getTime() > now)
    .map((c) => c.toString().trim() + '\n')
    .join('');
}

function sameNames(subjectAltName: string, dnsNames: readonly string[], ips: readonly string[]): boolean {
  const have = subjectAltName
    .split(',')
    .map((s) => s.trim())
    .sort();
  const want = [...dnsNames.map((d) => `DNS:${d}`), ...ips.map((ip) => `IP Address:${ip}`)].sort();
  return JSON.stringify(have) === JSON.stringify(want);
}
