import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promises } from 'node:fs';
import { ConfigurationError } from '@lib/config/configuration-error';
import { FOLDER_CHECK_MS, openReportQueue } from '@lib/reporting/queue/open';
import { reportQueueSlot, type ReportQueue } from '@lib/reporting/queue/queue';
import { recorderSlot } from '@lib/metrics/record';
import { recorderWith } from '../../../../support/recorder';

// Port 9 (discard): nothing listens, so every send is refused and the envelope waits.
const DSN = 'http://key@127.0.0.1:9/1';
const envelope = `{"event_id":"${'a'.repeat(32)}","dsn":"${DSN}"}\n{"type":"event"}\n{"message":"kept"}\n`;
const INGEST = { connections: 2, timeoutMs: 1000 };

let folder: string;
let queue: ReportQueue | null = null;
beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'report-queue-open-'));
});
afterEach(() => {
  queue?.stop();
  reportQueueSlot.clear();
  rmSync(folder, { recursive: true, force: true });
});

/** The queue's events as the metrics recorder gets them ("event source reason"), until recorderSlot.clear(). */
function countQueueEvents(): string[] {
  const counted: string[] = [];
  recorderSlot.write(
    recorderWith({
      reportQueue: (event, labels) =>
        counted.push([event, labels.source, labels.reason, labels.direction].filter(Boolean).join(' ')),
    }),
  );
  return counted;
}

describe('opening the report queue', () => {
  it('keeps what waits in the folder it is given, and puts the queue in its slot', async () => {
    // A folder whose parents do not exist yet either, as on a new volume.
    const where = path.join(folder, 'var', 'queue');
    queue = await openReportQueue({ dsn: DSN, folder: where, limits: {}, senders: null, ingest: INGEST });
    expect(reportQueueSlot.read()).toBe(queue);
    expect(await queue.submit('server', envelope)).toEqual({ kind: 'queued' });
    expect(readdirSync(where).filter((name) => name.endsWith('.envelope'))).toHaveLength(1);
    expect(queue.stats().memoryBytes).toBe(0);
  });

  it('stops the start in one sentence when the folder cannot be used (a file in its place)', async () => {
    const notAFolder = path.join(folder, 'file');
    writeFileSync(notAFolder, '');
    await expect(
      openReportQueue({ dsn: DSN, folder: notAFolder, limits: {}, senders: null, ingest: INGEST }),
    ).rejects.toEqual(
      new ConfigurationError(
        `REPORT_QUEUE_DIR ${notAFolder} cannot be used (EEXIST): set it to a folder this user may create and write, or leave it unset to keep reports in memory.`,
      ),
    );
    expect(reportQueueSlot.read()).toBeUndefined();
  });

  it('stops the start within its bound when the folder never answers (as under /proc)', async () => {
    const hung = jest.spyOn(promises, 'mkdir').mockImplementation(() => new Promise(() => {}));
    const started = performance.now();
    try {
      await expect(
        openReportQueue({ dsn: DSN, folder, limits: {}, senders: null, ingest: INGEST, folderCheckMs: 200 }),
      ).rejects.toThrow(
        `REPORT_QUEUE_DIR ${folder} did not answer within 0.2 s: set it to a folder on a disk, or leave it unset to keep reports in memory.`,
      );
    } finally {
      hung.mockRestore();
    }
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('waits 5 s for the folder by default', () => {
    expect(FOLDER_CHECK_MS).toBe(5000);
  });

  it.each(['ENOSPC', 'EDQUOT', 'EMFILE', 'ENFILE', 'EIO', 'ENOMEM'])(
    'waits in memory, and says so, when the folder fails for a while (%s): the app keeps serving',
    async (code) => {
      const full = jest
        .spyOn(promises, 'writeFile')
        .mockRejectedValue(Object.assign(new Error('no space'), { code }));
      const lines: string[] = [];
      const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
        lines.push(String(chunk));
        return true;
      });
      try {
        queue = await openReportQueue({ dsn: DSN, folder, limits: {}, senders: null, ingest: INGEST });
      } finally {
        spy.mockRestore();
        full.mockRestore();
      }
      const said = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(said.find((line) => line.event === 'reporting.queue_folder_unusable')).toMatchObject({
        folder,
        reason: code,
        fallback: 'memory',
      });
      expect(await queue.submit('server', envelope)).toEqual({ kind: 'queued' });
      expect(queue.stats().memoryBytes).toBeGreaterThan(0);
    },
  );

  it('counts what happens to each envelope, by source and reason', async () => {
    const counted = countQueueEvents();
    try {
      queue = await openReportQueue({
        dsn: DSN,
        folder: null,
        limits: { maxEnvelopes: 2, minBackoffMs: 60_000 },
        senders: null,
        ingest: INGEST,
      });
      await queue.submit('browser', envelope);
      await queue.submit('browser', envelope);
      expect(counted).toEqual(['retried unreachable', 'queued browser', 'dropped browser full']);
    } finally {
      recorderSlot.clear();
    }
  });

  it('counts envelopes taken from a stopping peer and handed to one, by source and direction', async () => {
    const counted = countQueueEvents();
    try {
      queue = await openReportQueue({
        dsn: DSN,
        folder: null,
        limits: { minBackoffMs: 60_000 },
        senders: null,
        ingest: INGEST,
      });
      expect(
        await queue.adopt({
          source: 'browser',
          body: Buffer.from(envelope),
          headers: {},
          queuedAt: Date.now(),
        }),
      ).toBe('queued');
      await queue.handOver(async () => true, { concurrency: 1, signal: new AbortController().signal });
      expect(counted.filter((event) => event.startsWith('handed_over'))).toEqual([
        'handed_over browser in',
        'handed_over browser out',
      ]);
    } finally {
      recorderSlot.clear();
    }
  });

  it('counts an envelope that waited as sent once the ingest took it', async () => {
    const counted = countQueueEvents();
    let status = 500;
    try {
      queue = await openReportQueue({
        dsn: DSN,
        folder: null,
        limits: { minBackoffMs: 10, maxBackoffMs: 10 },
        senders: () => ({
          send: () => Promise.resolve({ status, rateLimits: null, retryAfter: null, body: '' }),
        }),
        ingest: INGEST,
      });
      await queue.submit('server', envelope);
      status = 200;
      const deadline = Date.now() + 3000;
      while (!counted.includes('sent server') && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect(counted).toEqual(['retried status_5xx', 'queued server', 'sent server']);
    } finally {
      recorderSlot.clear();
    }
  });

  it('refuses a DSN it cannot read', async () => {
    await expect(
      openReportQueue({ dsn: 'not a dsn', folder: null, limits: {}, senders: null, ingest: INGEST }),
    ).rejects.toThrow('The report queue needs a valid DSN');
  });

  it('sends through the ingest thread when the server runs one', async () => {
    const asked: string[] = [];
    queue = await openReportQueue({
      dsn: DSN,
      folder: null,
      limits: {},
      senders: (url) => ({
        send: async () => {
          asked.push(url);
          return { status: 200, rateLimits: null, retryAfter: null, body: '' };
        },
      }),
      ingest: INGEST,
    });
    expect(await queue.submit('server', envelope)).toMatchObject({
      kind: 'answered',
      reply: { status: 200 },
    });
    expect(asked).toEqual(['http://127.0.0.1:9/api/1/envelope/?sentry_version=7&sentry_key=key']);
  });
});
