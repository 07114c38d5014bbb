// The GraphQL documents the dashboard sends, and the shapes of their answers (see schema.graphql).

export type JsonObject = { [key: string]: unknown };

export interface User {
  id: string;
  handle: string;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
  revokedAt: string | null;
  current: boolean;
}

export interface Memory {
  id: string;
  content: string;
  data: JsonObject | null;
  type: string | null;
  tags: string[];
  metadata: JsonObject;
  isArchived: boolean;
  threadId: string | null;
  thread: { id: string; title: string } | null;
  createdAt: string;
  updatedAt: string;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
}

export type ThreadStatus = "active" | "archived" | "completed";
export const THREAD_STATUSES: readonly ThreadStatus[] = ["active", "archived", "completed"];

export interface Thread {
  id: string;
  title: string;
  description: string | null;
  status: ThreadStatus;
  memoryCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface MemoryFilter {
  type?: string;
  tags?: string[];
  isArchived?: boolean;
}

const KEY_FIELDS = "id name prefix createdAt lastUsedAt revoked revokedAt current";
const MEMORY_FIELDS = "id content data type tags metadata isArchived threadId thread { id title } createdAt updatedAt";
const THREAD_FIELDS = "id title description status memoryCount createdAt updatedAt";

export const ME = `query Me { me { id handle } }`;

export const API_KEYS = `query ApiKeys { apiKeys { ${KEY_FIELDS} } }`;
export const CREATE_API_KEY = `mutation CreateApiKey($name: String!) { createApiKey(name: $name) { key apiKey { ${KEY_FIELDS} } } }`;
export const REVOKE_API_KEY = `mutation RevokeApiKey($id: ID!) { revokeApiKey(id: $id) { ${KEY_FIELDS} } }`;

export const MEMORIES = `query Memories($filter: MemoryFilter, $limit: Int, $offset: Int) {
  memories(filter: $filter, limit: $limit, offset: $offset) { items { ${MEMORY_FIELDS} } total limit offset hasMore }
}`;
export const MEMORY = `query Memory($id: ID!) { memory(id: $id) { ${MEMORY_FIELDS} } }`;
export const CREATE_MEMORY = `mutation CreateMemory($input: CreateMemoryInput!) { createMemory(input: $input) { ${MEMORY_FIELDS} } }`;
export const UPDATE_MEMORY = `mutation UpdateMemory($id: ID!, $input: UpdateMemoryInput!) { updateMemory(id: $id, input: $input) { ${MEMORY_FIELDS} } }`;
export const DELETE_MEMORY = `mutation DeleteMemory($id: ID!) { deleteMemory(id: $id) }`;

export interface SearchHit {
  id: string;
  score: number;
  memory: Memory;
}
export const SEARCH = `query Search($query: String!, $limit: Int) {
  searchMemories(query: $query, limit: $limit) { total results { id score memory { ${MEMORY_FIELDS} } } }
}`;

export type RecallPath = "hybrid" | "profile" | "semantic" | "thread";
export interface RecallHit {
  id: string;
  relevance: number;
  memory: Memory;
}
export const RECALL = `query Recall($query: String!, $limit: Int) {
  recall(query: $query, limit: $limit) { queryType total results { id relevance memory { ${MEMORY_FIELDS} } } }
}`;

export const THREADS = `query Threads($status: ThreadStatus, $limit: Int, $offset: Int) {
  threads(status: $status, limit: $limit, offset: $offset) { items { ${THREAD_FIELDS} } total limit offset hasMore }
}`;
export const UPDATE_THREAD = `mutation UpdateThread($id: ID!, $input: UpdateThreadInput!) { updateThread(id: $id, input: $input) { ${THREAD_FIELDS} } }`;
