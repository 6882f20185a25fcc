// The server's client names its SDK as Relay requires, in the event and in the envelope header:
// made inside the test, so that mutation testing knows this test reaches where it is made.
import { createTransport, parseEnvelope, SDK_VERSION, type BaseTransportOptions } from '@sentry/core';
import { createServerClient } from '@lib/reporting/node/server-client';

it("names its SDK and version (relay-event-schema's clientsdk.rs requires both) in the event and the envelope header", async () => {
  const sent: string[] = [];
  const transport = (options: BaseTransportOptions) =>
    createTransport(options, async (request) => {
      sent.push(typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body));
      return { statusCode: 200 };
    });
  const client = createServerClient(
    { dsn: 'http://publickey@127.0.0.1:9/1', release: 'r1', environment: 'test' },
    { report: () => {}, transaction: () => {} },
    transport,
  );
  client.init();
  client.captureException(new Error('named'));
  await client.flush(2000);
  expect(sent).toHaveLength(1);
  const [header, items] = parseEnvelope(sent[0]!);
  const sdk = { name: 'sentry.javascript.core', version: SDK_VERSION };
  expect(header.sdk).toEqual(expect.objectContaining(sdk));
  expect(items[0]![1]).toEqual(
    expect.objectContaining({
      sdk: expect.objectContaining({
        ...sdk,
        packages: [{ name: 'npm:@sentry/core', version: SDK_VERSION }],
        integrations: expect.arrayContaining(['Dedupe', 'LinkedErrors']),
      }),
    }),
  );
  expect(SDK_VERSION).toMatch(/^\d+\.\d+\.\d+/);
});
