// One answer of a page on a fresh connection, as the pinned page benches check theirs: its status,
// Next's cache header, and when the page was rendered (the text of its <time>).
const http = require('node:http');

/** @param {string} url @returns {Promise<{ status: number, cache: string, renderedAt: string }>} */
function probe(url) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          cache: String(res.headers['x-nextjs-cache'] ?? ''),
          renderedAt: /<time>([^<]+)<\/time>/.exec(body)?.[1] ?? '',
        }),
      );
    });
    request.on('timeout', () => request.destroy(new Error(`no answer from ${url} within 10 s`)));
    request.on('error', reject);
  });
}

module.exports = { probe };
