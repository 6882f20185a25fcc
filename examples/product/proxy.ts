import { NextResponse, type NextRequest } from 'next/server';

export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  if (pathname === '/old') return NextResponse.redirect(new URL('/about', request.url), 308);
  if (pathname === '/mw-redirect') return NextResponse.redirect(new URL('/about', request.url));
  if (pathname === '/mw-rewrite') return NextResponse.rewrite(new URL('/about', request.url));
  if (pathname === '/mw-gone') return new NextResponse('gone', { status: 410 });
  const response = NextResponse.next();
  response.headers.set('x-product-proxy', 'seen');
  return response;
}
