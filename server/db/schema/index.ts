/**
 * The whole data model (docs/decisions.md D5). Money is integer fen; every balance column is changed only by the
 * ledger service, in the same transaction as the ledger entries that explain it. Property names are snake_case so
 * rows map to the API's snake_case JSON without renaming.
 */
export * from './accounts';
export * from './catalogue';
export * from './members';
export * from './ledger';
export * from './orders';
export * from './withdrawals';
export * from './wechat-pay';
export * from './sandbox';
export * from './people';
export * from './reports';
