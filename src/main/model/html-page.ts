/**
 * A web page where an API answer was expected (a proxy's login page, a web server's 404): said in
 * one line (status, content type, title), never printed or recorded whole.
 */

/** An HTML page in one line: status, content type, title. */
export function summarizeHtml(status: number, contentType: string, body: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(body)?.[1]?.replace(/\s+/g, ' ').trim();
  return `HTTP ${status}, ${contentType || 'no content type'}${title ? `, page title "${title.slice(0, 120)}"` : ''}`;
}

/** Whether a response body is an HTML page (by its content type or its first bytes). */
export function looksLikeHtml(contentType: string, body: string): boolean {
  return /text\/html/i.test(contentType) || /^\s*(<!doctype html|<html)/i.test(body);
}
