// The product's settings on top of the shell's: in the shell's own tree a team writes these in
// next.config.ts's returned object; the example keeps the shell's file whole as shell.next.config.ts.
import type { NextConfig } from 'next';
import shellConfig from './shell.next.config';

export default function nextConfig(phase: string): NextConfig {
  return {
    ...shellConfig(phase),
    async headers() {
      return [
        // The product's own header on every answer, the shell's included; and one of the same name
        // as a shell default, which wins over it (stricter: no Referer leaves for another site).
        {
          source: '/:path*',
          headers: [
            { key: 'x-product-team', value: 'storefront' },
            { key: 'Referrer-Policy', value: 'same-origin' },
          ],
        },
        {
          source: '/api/:path*',
          headers: [
            { key: 'cache-control', value: 'private, no-store' },
            // The API's policy of its own: the shell's, sandboxed as well.
            { key: 'Content-Security-Policy', value: "default-src 'none'; frame-ancestors 'none'; sandbox" },
          ],
        },
      ];
    },
  };
}
