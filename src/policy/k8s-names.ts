/**
 * Kubernetes' name formats, once: the patterns and length limits of apimachinery's
 * pkg/util/validation/validation.go (IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label, IsQualifiedName).
 * The predicates check pattern and length together; the bare patterns are for callers with a limit of
 * their own (KubeRay's 47/53-character Ray object names) or messages that name each part. Pure.
 */

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const DNS1035_LABEL_MAX_LENGTH = 63;
/** The name part of a qualified name (a label key, a resource name): at most 63 characters. */
export const QUALIFIED_NAME_MAX_LENGTH = 63;
/** A label value: empty, or a qualified name part of at most 63 characters. */
export const LABEL_VALUE_MAX_LENGTH = 63;

/** Lowercase alphanumerics and "-", starting and ending alphanumeric (no length). */
export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** DNS-1123 labels joined by "." (no length). */
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A DNS-1123 label that starts with a letter (no length). */
export const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** The name part of a qualified name, also a label value's format (no length). */
export const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

// Each predicate is a type guard for a value of unknown type (true: it is a string, and a valid name). A string
// given is only checked: a guard to string would make it never where the name is refused, as if it were no string.
export function isDns1123Label(v: string): boolean;
export function isDns1123Label(v: unknown): v is string;
export function isDns1123Label(v: unknown): boolean {
  return typeof v === 'string' && v.length <= DNS1123_LABEL_MAX_LENGTH && DNS1123_LABEL.test(v);
}

export function isDns1123Subdomain(v: string): boolean;
export function isDns1123Subdomain(v: unknown): v is string;
export function isDns1123Subdomain(v: unknown): boolean {
  return typeof v === 'string' && v.length <= DNS1123_SUBDOMAIN_MAX_LENGTH && DNS1123_SUBDOMAIN.test(v);
}

export function isDns1035Label(v: string): boolean;
export function isDns1035Label(v: unknown): v is string;
export function isDns1035Label(v: unknown): boolean {
  return typeof v === 'string' && v.length <= DNS1035_LABEL_MAX_LENGTH && DNS1035_LABEL.test(v);
}

/** An optional DNS-1123 subdomain prefix and "/", then a name part of at most 63 characters ("nvidia.com/gpu", "cpu"). */
export function isQualifiedName(v: string): boolean;
export function isQualifiedName(v: unknown): v is string;
export function isQualifiedName(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const slash = v.indexOf('/');
  const name = slash < 0 ? v : v.slice(slash + 1);
  if (slash >= 0 && !isDns1123Subdomain(v.slice(0, slash))) return false;
  return name.length <= QUALIFIED_NAME_MAX_LENGTH && QUALIFIED_NAME_PART.test(name);
}
