/**
 * The AWS query protocol, as SQS served it before AWS JSON (and as the AWS CLI v2 shipped by Debian, 2.9,
 * still speaks it): a form-encoded `POST` with `Action=<Operation>&Version=...` and the input flattened
 * into dotted names (`Attribute.1.Name=VisibilityTimeout&Attribute.1.Value=60`); answers are XML,
 * `<OperationResponse><OperationResult>...</OperationResult><ResponseMetadata>...` or `<ErrorResponse>`.
 * This module has the service-independent halves: decoding the flattened names into a tree and writing
 * XML. A service maps its own member names on both. What the port needs to route such a request is in
 * aws-query-requests.ts, so that the XML builder loads with the service that writes XML, not with the port.
 */
import { randomUUID } from 'node:crypto';
import { XmlNode } from '@aws-sdk/xml-builder';

/** A decoded query input: `a.1.b=x` becomes `{ a: { '1': { b: 'x' } } }` (values stay strings). */
export type QueryTree = { [name: string]: string | QueryTree };

/** Decodes the dotted names of a form into a tree (null-prototype objects: names like `__proto__` are plain keys). */
export function decodeQueryForm(form: URLSearchParams, skip: readonly string[] = ['Action', 'Version']): QueryTree {
  const root: QueryTree = Object.create(null) as QueryTree;
  for (const [name, value] of form) {
    if (skip.includes(name)) continue;
    const parts = name.split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (typeof next === 'string') break; // `a=1&a.b=2`: the first spelling wins
      node = next ?? (node[part] = Object.create(null) as QueryTree);
    }
    const last = parts[parts.length - 1];
    if (node[last] === undefined) node[last] = value;
  }
  return root;
}

/** The numbered members of a flattened list (`1`, `2`, ... in order; gaps and other keys are dropped). */
export function queryListMembers(node: string | QueryTree | undefined): (string | QueryTree)[] {
  if (node === undefined || typeof node === 'string') return [];
  return Object.keys(node)
    .filter((k) => /^[1-9]\d{0,3}$/.test(k))
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => node[k]);
}

// XML 1.0 cannot carry these characters even escaped; an answer must stay parseable.
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** An element with text (escaped by the SDK's XML writer; characters XML cannot carry become U+FFFD). */
export const textElement = (name: string, text: string): XmlNode => XmlNode.of(name, text.replace(NOT_XML, '\ufffd'));

/** `<?xml ...?>` and the document. */
export const xmlDocument = (root: XmlNode): string => `<?xml version="1.0" encoding="UTF-8"?>${root.toString()}`;

/** `<{Action}Response xmlns><{Action}Result>...</{Action}Result><ResponseMetadata><RequestId/>...` */
export function queryResponse(namespace: string, action: string, result: readonly XmlNode[]): string {
  const root = new XmlNode(`${action}Response`).addAttribute('xmlns', namespace);
  if (result.length > 0) root.addChildNode(new XmlNode(`${action}Result`, [...result]));
  root.addChildNode(new XmlNode('ResponseMetadata', [textElement('RequestId', randomUUID())]));
  return xmlDocument(root);
}

/** `<ErrorResponse xmlns><Error><Type/><Code/><Message/><Detail/></Error><RequestId/></ErrorResponse>` */
export function queryErrorResponse(
  namespace: string,
  error: { type: 'Sender' | 'Receiver'; code: string; message: string },
): string {
  return xmlDocument(
    new XmlNode('ErrorResponse')
      .addAttribute('xmlns', namespace)
      .addChildNode(
        new XmlNode('Error', [
          textElement('Type', error.type),
          textElement('Code', error.code),
          textElement('Message', error.message),
          new XmlNode('Detail'),
        ]),
      )
      .addChildNode(textElement('RequestId', randomUUID())),
  );
}
