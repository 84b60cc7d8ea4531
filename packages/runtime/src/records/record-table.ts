import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
  paginateScan,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** Name of the table's TTL attribute (docs/architecture.md §3). */
export const TTL_ATTRIBUTE = 'expiration';

/** A DynamoDB item of the runtime's table: `id` plus attributes. */
export type TableItem = { readonly id: string } & Record<string, unknown>;

/** A conditional write that did not happen, with the item that stopped it (absent if none exists). */
export interface ConditionFailed {
  readonly written: false;
  readonly existing?: TableItem;
}

/** A condition expression with its placeholders. */
export interface Condition {
  readonly expression: string;
  readonly names?: Record<string, string>;
  readonly values?: Record<string, unknown>;
}

/**
 * Thin adapter over the runtime's single table (pk `id`, TTL `expiration`), shared by the idempotency
 * ledger, recorded model calls and approvals. Conditional writes ask for the blocking item with
 * `ReturnValuesOnConditionCheckFailure: ALL_OLD`; dynalite ignores that flag, so only when the failure
 * carries no item do we fall back to one consistent read.
 */
export class RecordTable {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  /** The item, read consistently. */
  async get(id: string): Promise<TableItem | undefined> {
    const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: { id }, ConsistentRead: true }));
    return out.Item as TableItem | undefined;
  }

  /** Every item whose `id` starts with `prefix` and that `filter` admits (a full scan: for maintenance, never a hot path). */
  async *scan(prefix: string, filter?: Condition): AsyncIterable<TableItem> {
    const pages = paginateScan(
      { client: this.doc },
      {
        TableName: this.tableName,
        ConsistentRead: true,
        FilterExpression: ['begins_with(id, :idPrefix)', filter?.expression].filter(Boolean).join(' AND '),
        ExpressionAttributeNames: filter?.names,
        ExpressionAttributeValues: { ':idPrefix': prefix, ...filter?.values },
      },
    );
    for await (const page of pages) yield* (page.Items ?? []) as TableItem[];
  }

  /** Puts `item` if `condition` holds; on success returns the item it replaced, if any. */
  async putIf(
    item: TableItem,
    condition: Condition,
  ): Promise<{ readonly written: true; readonly replaced?: TableItem } | ConditionFailed> {
    try {
      const out = await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: condition.names,
          ExpressionAttributeValues: condition.values,
          ReturnValues: 'ALL_OLD',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { written: true, replaced: out.Attributes as TableItem | undefined };
    } catch (error) {
      return this.conditionFailed(error, item.id);
    }
  }

  /** Puts `item` unless an item with its id exists. */
  putIfAbsent(item: TableItem): Promise<{ readonly written: true } | ConditionFailed> {
    return this.putIf(item, { expression: 'attribute_not_exists(id)' });
  }

  /** Sets attributes of an existing item if `condition` holds. */
  async updateIf(
    id: string,
    set: Record<string, unknown>,
    condition: Condition,
  ): Promise<{ readonly written: true } | ConditionFailed> {
    const names: Record<string, string> = { ...condition.names };
    const values: Record<string, unknown> = { ...condition.values };
    const assignments = Object.entries(set).map(([name, value], i) => {
      names[`#set${i}`] = name;
      values[`:set${i}`] = value;
      return `#set${i} = :set${i}`;
    });
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id },
          UpdateExpression: `SET ${assignments.join(', ')}`,
          ConditionExpression: `attribute_exists(id) AND (${condition.expression})`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { written: true };
    } catch (error) {
      return this.conditionFailed(error, id);
    }
  }

  /** Deletes the item if `condition` holds; returns whether it did. */
  async deleteIf(id: string, condition: Condition): Promise<boolean> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { id },
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: condition.names,
          ExpressionAttributeValues: condition.values,
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  private async conditionFailed(error: unknown, id: string): Promise<ConditionFailed> {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    if (error.Item) {
      return { written: false, existing: unmarshall(error.Item) as TableItem };
    }
    return { written: false, existing: await this.get(id) };
  }
}
