/** Who a request acts for: the owner of the API key it carries. Every read and write is scoped by `userId`. */
export interface Principal {
  userId: string;
  keyId: string;
}

/** Who a write is for and by: a request's principal, or an operator's import (no key: made outside the API). */
export interface Author {
  userId: string;
  keyId: string | null;
}
