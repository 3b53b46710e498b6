# frozen_string_literal: true

module Loyalty
  class InsufficientPoints < StandardError; end

  # Expires loyalty points that were earned more than two years ago and never
  # spent. Spending consumes the oldest points first (FIFO), so we replay a
  # customer's ledger to work out which earned points are still unspent.
  class PointsExpiry
    EXPIRY_AGE = 2.years

    Result = Struct.new(:customers_checked, :points_expired, keyword_init: true)

    def initialize(now: Time.current, logger: Rails.logger)
      @now = now
      @logger = logger
    end

    def call(scope = Customer.where("points_balance > 0"))
      checked = 0
      expired = 0
      scope.find_each(batch_size: 500) do |customer|
        checked += 1
        amount = expirable_points(customer)
        next if amount.zero?

        Customer.transaction do
          customer.lock!
          customer.point_transactions.create!(delta: -amount, reason: "expired")
          customer.decrement!(:points_balance, amount)
        end
        expired += amount
      end
      @logger.info("loyalty expiry: #{checked} customers, #{expired} points expired")
      Result.new(customers_checked: checked, points_expired: expired)
    end

    # Unspent points from earn transactions older than the cutoff.
    def expirable_points(customer)
      cutoff = @now - EXPIRY_AGE
      ledger = customer.point_transactions.reorder(:created_at).to_a
      spent = ledger.select { |t| t.delta.negative? }.sum { |t| -t.delta }
      old_unspent = 0
      ledger.select(&:positive_delta?).each do |earn|
        consumed = [spent, earn.delta].min
        spent -= consumed
        old_unspent += earn.delta - consumed if earn.created_at < cutoff
      end
      [old_unspent, customer.points_balance].min
    end
  end
end
