import { defineContract } from '../../../runtime/contract';
import { Manager } from '../../../runtime/manager';
import { staticCertificate } from '../../../runtime/webhook/certificate-source';
import { allowed } from '../../../runtime/webhook/validating';
import { MemoryClient } from '../memory-client';
import { testLogger } from '../support';
import { localCertificates } from './support';

const WEBSITE = { apiVersion: 'example.com/v1', kind: 'Website', plural: 'websites' };
const { serving } = localCertificates();
const server = { certificates: staticCertificate(serving), bindAddress: '127.0.0.1:0' };

describe('Manager webhooks and the contract', () => {
  test('a webhook the contract does not declare is refused, naming the clause', () => {
    const manager = new Manager({
      client: new MemoryClient(),
      logger: testLogger(),
      contract: defineContract({ watches: [WEBSITE] }),
      webhookServer: server,
    });
    expect(() => manager.validatingWebhook(WEBSITE, () => allowed())).toThrow(
      "a validating webhook for example.com/v1 Website needs it declared in contract.webhooks ({ type: 'validating', for: ... })",
    );
  });

  test('a declared webhook is served at its path; one without a handler stops start()', async () => {
    const contract = defineContract({
      watches: [WEBSITE],
      webhooks: [
        { type: 'validating', for: WEBSITE },
        { type: 'defaulting', for: WEBSITE },
      ],
    });
    const manager = new Manager({ client: new MemoryClient(), logger: testLogger(), contract, webhookServer: server });
    manager.validatingWebhook(WEBSITE, () => allowed());
    expect([...manager.webhookServer!.paths]).toEqual([['/validate-example-com-v1-website', 'validating']]);
    await expect(manager.start()).rejects.toThrow(
      'the contract declares webhooks without a handler (the apiserver would call them and fail): /mutate-example-com-v1-website',
    );
    manager.defaultingWebhook(WEBSITE, (w) => w);
    await manager.start();
    expect(() => manager.webhookServer!.ready()).not.toThrow();
    await manager.stop();
  });

  test('without a webhook server, handlers cannot be registered (and declared webhooks are not required: reconciler tests)', async () => {
    const contract = defineContract({ watches: [WEBSITE], webhooks: [{ type: 'validating', for: WEBSITE }] });
    const manager = new Manager({ client: new MemoryClient(), logger: testLogger(), contract });
    expect(() => manager.validatingWebhook(WEBSITE, () => allowed())).toThrow(
      "needs the manager's webhookServer option",
    );
    await manager.start();
    await manager.stop();
  });

  test('defineContract refuses malformed webhooks, each named', () => {
    expect(() =>
      defineContract({
        watches: [WEBSITE],
        webhooks: [
          { type: 'validating', for: WEBSITE, timeoutSeconds: 31, operations: [] },
          { type: 'validating', for: WEBSITE },
        ],
      }),
    ).toThrow(
      /contract\.webhooks\[0\]\.operations: must name at least one operation, got \[\][\s\S]*contract\.webhooks\[0\]\.timeoutSeconds: must be an integer from 1 to 30 \(the apiserver's limit\), got 31[\s\S]*contract\.webhooks\[1\]: a second validating webhook for 'Website\.example\.com'/,
    );
  });
});
