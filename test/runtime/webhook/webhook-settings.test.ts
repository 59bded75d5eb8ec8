import { parseDuration, webhookSettingsFromEnv } from '../../../runtime/webhook/webhook-settings';

describe("webhook settings from the chart's environment", () => {
  test('what the chart sets becomes the Service names, targets and validities', () => {
    expect(
      webhookSettingsFromEnv({
        POD_NAMESPACE: 'db-system',
        WEBHOOK_CERT_SECRET: 'db-webhook-cert',
        WEBHOOK_SERVICE_NAME: 'db-webhook',
        WEBHOOK_CA_INJECT: 'ValidatingWebhookConfiguration/db,MutatingWebhookConfiguration/db',
        WEBHOOK_CA_VALIDITY: '60s',
        WEBHOOK_CERT_VALIDITY: '1h30m',
      }),
    ).toEqual({
      certificates: 'self-managed',
      namespace: 'db-system',
      secretName: 'db-webhook-cert',
      serviceName: 'db-webhook',
      dnsNames: [
        'db-webhook',
        'db-webhook.db-system',
        'db-webhook.db-system.svc',
        'db-webhook.db-system.svc.cluster.local',
      ],
      inject: [
        { kind: 'ValidatingWebhookConfiguration', name: 'db' },
        { kind: 'MutatingWebhookConfiguration', name: 'db' },
      ],
      caValidityMs: 60_000,
      servingValidityMs: 5_400_000,
      checkIntervalMs: undefined,
      caPropagationMs: undefined,
      reloadIntervalMs: undefined,
    });
  });

  test('not from the chart: no settings; a certificate folder: files mode', () => {
    expect(webhookSettingsFromEnv({})).toBeUndefined();
    expect(webhookSettingsFromEnv({ WEBHOOK_CERT_DIR: '/certs' })).toMatchObject({
      certificates: 'files',
      certDir: '/certs',
    });
  });

  test('every malformed value is reported, named, before anything connects', () => {
    expect(() =>
      webhookSettingsFromEnv({
        WEBHOOK_CERT_SECRET: 's',
        WEBHOOK_CERTIFICATES: 'vault',
        WEBHOOK_CA_INJECT: 'Secret/x',
        WEBHOOK_CA_VALIDITY: '1 year',
      }),
    ).toThrow(
      [
        'webhook environment:',
        '  - POD_NAMESPACE: must be set (the chart sets it from the downward API)',
        '  - WEBHOOK_SERVICE: must name the webhook Service',
        "  - WEBHOOK_CERTIFICATES: must be self-managed or cert-manager, got 'vault'",
        "  - WEBHOOK_CA_INJECT: each item must be Kind/name with Kind one of ValidatingWebhookConfiguration, MutatingWebhookConfiguration, CustomResourceDefinition, got 'Secret/x'",
        "  - WEBHOOK_CA_VALIDITY: must be a duration like 90s, 30m or 8760h, got '1 year'",
      ].join('\n'),
    );
    expect(parseDuration('X', '500ms')).toBe(500);
    expect(() => parseDuration('X', '0s')).toThrow("X: must be positive, got '0s'");
  });
});
