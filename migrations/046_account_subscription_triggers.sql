-- A subscription to an account is told about the account: its callback's `trigger` is the
-- subscribed SRN (`account:AC_…`), as Wyre's subscription docs show, and the receiver fetches the
-- account. Subscriptions to a transfer, a user or the transfer's own notifyUrl keep naming the
-- transfer (`transfer:TF_…`). docs/contract.md, "Subscriptions and callbacks".
CREATE OR REPLACE FUNCTION callbacks_queue_transfers_created(partners text[], acting_accounts text[], transfer_triggers text[],
                                                             implicit_ids text[], notify_urls text[],
                                                             srn_transfers integer[], srns text[],
                                                             created timestamptz[], attempts_allowed integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  queued integer;
BEGIN
  INSERT INTO callback_subscriptions (id, partner_id, account_id, subscribe_to, notify_target, implicit, created_at)
    SELECT t.implicit_id, t.partner, t.account, t.trigger, t.url, true, t.created
    FROM unnest(partners, acting_accounts, transfer_triggers, implicit_ids, notify_urls, created)
         AS t(partner, account, trigger, implicit_id, url, created)
    WHERE t.url IS NOT NULL;
  INSERT INTO callback_deliveries (id, partner_id, subscription_id, trigger, url, body, status, max_attempts)
    SELECT callbacks_new_delivery_id(), m.partner, m.id, m.trigger, m.notify_target,
           '{"subscriptionId":' || to_json(m.id)::text || ',"trigger":' || to_json(m.trigger)::text || '}',
           'PENDING', attempts_allowed
    FROM (SELECT DISTINCT ON (x.transfer, s.id) partners[x.transfer] AS partner,
                 CASE WHEN s.subscribe_to LIKE 'account:%' THEN s.subscribe_to
                      ELSE transfer_triggers[x.transfer] END AS trigger,
                 s.id, s.notify_target, s.created_at
          FROM unnest(srn_transfers, srns) AS x(transfer, srn)
          JOIN callback_subscriptions s
            ON s.partner_id = partners[x.transfer] AND s.subscribe_to = x.srn AND s.deleted_at IS NULL
          ORDER BY x.transfer, s.id) AS m
    ORDER BY m.created_at, m.id;
  GET DIAGNOSTICS queued = ROW_COUNT;
  RETURN queued;
END $$;
