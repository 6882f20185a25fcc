// What the tunnel makes of a browser's Content-Security-Policy violation reports (the policy's
// report-uri and report-to name the tunnel: lib/http/security-headers.ts). No I/O here: content
// type and body in, the reports to forward (or a refusal) out; ./index.ts reads, queues and answers.
//
// Sentry ingests them at its security endpoint, `/api/<project>/security/?sentry_key=…` (Relay,
// relay-server/src/endpoints/security_report.rs): a POST of `application/csp-report` (or
// `application/json`), ONE report per request, wrapped as a `raw_security` item. Relay reads either
// shape (relay-event-schema/src/protocol/security_report.rs, `CspVariant`): `{"csp-report": {…}}`,
// as report-uri sends it, or `{"type": "csp-violation", "body": {…}}`, one entry of a Reporting API
// batch; its fields by either their kebab-case or their camelCase names (`CspRaw`'s aliases). It
// takes no `application/reports+json` and no batch, so a batch is split here.
//
// SECURITY: what is forwarded is a re-serialisation of the fields Relay reads, never the raw bytes
// (as for envelopes, ./envelope.ts), each URL and text scrubbed as every other report is, each
// field cut to a bounded length; a stranger's body costs one JSON parse of at most MAX_BYTES.
import { scrubText, scrubUrl } from '../scrub';
import { CSP_REPORT_TYPE } from '../ingest/forward';

/** The Reporting API's content type (report-to); report-uri's is CSP_REPORT_TYPE (../ingest/forward.ts). */
export const REPORTS_TYPE = 'application/reports+json';

/** A report is about a kilobyte, a Reporting API batch a few; a body larger than this is no report. */
export const MAX_BYTES = 64 * 1024;
/** The most reports one batch may forward; the rest are dropped (a broken policy reports each element). */
export const MAX_REPORTS_PER_BATCH = 10;
/** The longest a field is forwarded (a policy is some hundreds of characters, a URL seldom more). */
export const MAX_FIELD_LENGTH = 2048;

/** What Relay reads of a report, by the name it is forwarded under and the Reporting API's name. */
const URL_FIELDS: readonly (readonly [string, string])[] = [
  ['document-uri', 'documentURL'],
  ['blocked-uri', 'blockedURL'],
  ['referrer', 'referrer'],
  ['source-file', 'sourceFile'],
];
const TEXT_FIELDS: readonly (readonly [string, string])[] = [
  ['effective-directive', 'effectiveDirective'],
  ['violated-directive', 'violatedDirective'],
  ['original-policy', 'originalPolicy'],
  ['disposition', 'disposition'],
  // The first 40 characters of the inline script or style that was refused: scrubbed as text.
  ['script-sample', 'sample'],
];
const NUMBER_FIELDS: readonly (readonly [string, string])[] = [
  ['status-code', 'statusCode'],
  ['line-number', 'lineNumber'],
  ['column-number', 'columnNumber'],
];

export type SecurityVerdict =
  | { kind: 'forward'; reports: string[]; dropped: number }
  | { kind: 'refused'; reason: 'not_a_report' | 'no_reports'; status: number; message: string };

/** Whether a request's content type is a security report's (its media type, parameters aside). */
export function isSecurityReport(contentType: string | undefined): boolean {
  const media = mediaTypeOf(contentType);
  return media === CSP_REPORT_TYPE || media === REPORTS_TYPE;
}

function mediaTypeOf(contentType: string | undefined): string {
  // Stryker disable next-line StringLiteral: with no content type, any text but the two media types taken answers the same.
  const header = contentType ?? '';
  return header.split(';', 1)[0]!.trim().toLowerCase();
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first of a field's names the report has, as a string. */
function read(report: Record<string, unknown>, [legacy, modern]: readonly [string, string]): unknown {
  return report[legacy] ?? report[modern];
}

/** One report's fields as Relay reads them, scrubbed and bounded; null when it names no directive. */
export function scrubbedReport(report: Record<string, unknown>): Record<string, string | number> | null {
  const out: Record<string, string | number> = {};
  for (const field of URL_FIELDS) {
    const value = read(report, field);
    if (typeof value === 'string') out[field[0]] = scrubUrl(value.slice(0, MAX_FIELD_LENGTH));
  }
  for (const field of TEXT_FIELDS) {
    const value = read(report, field);
    if (typeof value === 'string') out[field[0]] = scrubText(value.slice(0, MAX_FIELD_LENGTH));
  }
  for (const field of NUMBER_FIELDS) {
    const value = read(report, field);
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) out[field[0]] = value;
  }
  // Relay refuses a report with neither directive ("invalid security report").
  if (out['effective-directive'] === undefined && out['violated-directive'] === undefined) return null;
  return out;
}

/** The reports in a body: report-uri's one, or a Reporting API batch's CSP entries. */
function reportsIn(mediaType: string, parsed: unknown): Record<string, unknown>[] | null {
  if (mediaType === CSP_REPORT_TYPE) {
    if (!isObject(parsed) || !isObject(parsed['csp-report'])) return null;
    return [parsed['csp-report']];
  }
  if (!Array.isArray(parsed)) return null;
  // Other kinds (deprecation, intervention…) are not the security endpoint's: left out.
  return parsed
    .filter((entry) => isObject(entry) && entry.type === 'csp-violation' && isObject(entry.body))
    .map((entry) => (entry as { body: Record<string, unknown> }).body);
}

/** What to forward of a body read whole: each report as Relay takes it, or a short, fixed refusal. */
export function judgeSecurityReports(contentType: string | undefined, body: Uint8Array): SecurityVerdict {
  const refused = (reason: 'not_a_report' | 'no_reports', message: string): SecurityVerdict => ({
    kind: 'refused',
    reason,
    status: 400,
    message,
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    // No JSON: left undefined, which holds no report and is refused just below, as any such body.
  }
  const found = reportsIn(mediaTypeOf(contentType), parsed);
  if (found === null) return refused('not_a_report', 'Not a security report.');
  const reports: string[] = [];
  for (const report of found.slice(0, MAX_REPORTS_PER_BATCH)) {
    const scrubbed = scrubbedReport(report);
    if (scrubbed) reports.push(JSON.stringify({ 'csp-report': scrubbed }));
  }
  if (reports.length === 0) return refused('no_reports', 'No CSP violation in this report.');
  return { kind: 'forward', reports, dropped: found.length - reports.length };
}

/**
 * How many reports may leave a second, and in a burst. SECURITY: a broken policy on a busy page,
 * or a stranger posting reports, must not spend the project's quota nor fill the report queue's
 * share for browsers: past this, reports are dropped (and counted), until the bucket fills again.
 */
export const SECURITY_RATE = { perSecond: 10, burst: 50 };

/** A token bucket: `take()` says whether one more report may leave now. */
export function createReportRate(
  { perSecond, burst }: { perSecond: number; burst: number } = SECURITY_RATE,
  now: () => number = Date.now,
): { take: () => boolean } {
  let tokens = burst;
  let at = now();
  return {
    take: () => {
      const time = now();
      tokens = Math.min(burst, tokens + ((time - at) / 1000) * perSecond);
      at = time;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
