// SECURITY: a setting may hold a URL with a user and password in it (`http://user:secret@peer`) or a
// token in its query, and a refused setting is printed (the server.cannot_start line, a log
// collector, anyone who reads the pod's log). Every URL in such a text is shown without its user,
// its password, its query and its fragment: what is left still says which value was refused.

/** `scheme://` (or `dns:`), then the authority's user and password up to its `@`. */
const USER_INFO = /\b((?:[a-z][a-z0-9+.-]*:\/\/)|dns:)[^\s/?#"'@,]*@/gi;
/** A URL's query or fragment: from `?` or `#` to the end of the URL. */
const QUERY = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s?#"',]*)[?#][^\s"',]*/gi;

/** `text` with every URL in it shown without its user, password, query and fragment. Never throws. */
export function withoutUrlSecrets(text: string): string {
  return text.replace(USER_INFO, '$1').replace(QUERY, '$1');
}
