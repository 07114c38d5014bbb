/** Who a request acts for: the owner of the API key it carries. Every read and write is scoped by `userId`. */
export interface Principal {
  userId: string;
  keyId: string;
}
