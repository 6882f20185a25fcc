// The server's answers: Node's ServerResponse, whose writeHead, write and end read three watches
// from flags every answer carries, set by the pipeline (./pipeline.ts): the product's headers on the
// shell's own answers (lib/http/product-headers.ts), an error answer kept private
// (lib/http/private-errors.ts) and Next's 404 in the shell's words (./restyle-not-found.ts). They
// were wrappers made for each request, five closures and five methods of each answer's own, which
// made every answer a shape of its own to Node's and Next's code that writes it; a request now pays
// a few fields, set in a constructor every answer shares. The server makes its answers of this class
// (`http.createServer({ ServerResponse })`), so Next, its compression and a product's code write
// through these methods as they wrote through the wrappers.
import { type IncomingMessage, ServerResponse } from 'node:http';
import { ERRORS_PRIVATE, privateErrorHead, type KeepsErrorsPrivate } from '../http/private-errors';
import {
  NEXT_ANSWERS,
  PRODUCT_HEADERS,
  PRODUCT_HEADERS_URL,
  productHeadersHead,
  type CarriesProductHeaders,
  type ProductHeaders,
} from '../http/product-headers';
import {
  NOT_FOUND_ANSWER,
  NOT_FOUND_PATH,
  restyling,
  RESTYLED,
  type AnswerMethods,
  type NotFoundAnswer,
  type Restylable,
} from './restyle-not-found';

/** Node's own methods, as every answer had them before any watch. */
const NODE = ServerResponse.prototype;

type Args = unknown[];
type Callback = () => void;

/**
 * Node's writeHead after the head's two steps, in the order the wrappers had them: the product's
 * headers over the shell's defaults, then an error's Cache-Control over everything. `rest` is what
 * writeHead was given after the status.
 */
function head(res: ShellResponse, status: number, rest: Args): ServerResponse {
  productHeadersHead(res);
  privateErrorHead(res, status, rest);
  return (NODE.writeHead as (...args: Args) => ServerResponse).call(res, status, ...rest);
}

/** Node's methods with the head's two steps: what writes once the restyle has stepped aside. */
const DIRECT: AnswerMethods = {
  writeHead: function writeHead(this: ShellResponse, status: number, ...rest: Args) {
    return head(this, status, rest);
  } as ServerResponse['writeHead'],
  write: NODE.write,
  end: NODE.end,
};

export class ShellResponse<Request extends IncomingMessage = IncomingMessage>
  extends ServerResponse<Request>
  implements CarriesProductHeaders, KeepsErrorsPrivate, Restylable
{
  [PRODUCT_HEADERS]: ProductHeaders | undefined = undefined;
  [PRODUCT_HEADERS_URL]: string | undefined = undefined;
  [NEXT_ANSWERS] = false;
  [ERRORS_PRIVATE] = false;
  [NOT_FOUND_ANSWER]: NotFoundAnswer | undefined = undefined;
  [NOT_FOUND_PATH]: string | undefined = undefined;
  [RESTYLED] = false;
}

// Over Node's on the prototype, as Node's own methods are (writable, configurable, not enumerable):
// an answer with no watch set goes straight on, for a few field reads.
Object.defineProperties(ShellResponse.prototype, {
  writeHead: {
    value: function writeHead(this: ShellResponse, status: number, ...rest: Args) {
      if (restyling(this, status, DIRECT)) return this;
      return head(this, status, rest);
    },
    writable: true,
    configurable: true,
  },
  write: {
    value: function write(this: ShellResponse, ...args: Args) {
      if (restyling(this, this.statusCode, DIRECT)) return true;
      return (NODE.write as (...args: Args) => boolean).apply(this, args);
    },
    writable: true,
    configurable: true,
  },
  end: {
    value: function end(this: ShellResponse, ...args: Args) {
      if (restyling(this, this.statusCode, DIRECT)) {
        // What Node would do with end's callback once the answer is written.
        const callback = args.find((arg) => typeof arg === 'function') as Callback | undefined;
        if (callback) queueMicrotask(callback);
        return this;
      }
      return (NODE.end as (...args: Args) => ServerResponse).apply(this, args);
    },
    writable: true,
    configurable: true,
  },
});
