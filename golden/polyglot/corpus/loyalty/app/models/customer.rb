# frozen_string_literal: true

# A Pagebound customer as seen by the loyalty programme.
#
# Points are earned on paid orders (1 point per whole pound) and can be
# redeemed in blocks of 500 for a £5 voucher. Tiers are recalculated nightly
# from the last twelve months of spend.
class Customer < ApplicationRecord
  TIERS = {
    bronze: 0,
    silver: 150_00,
    gold: 500_00
  }.freeze

  POINTS_PER_VOUCHER = 500
  VOUCHER_VALUE_MINOR = 5_00

  has_many :orders, dependent: :restrict_with_exception
  has_many :point_transactions, -> { order(created_at: :desc) }, dependent: :destroy

  validates :email, presence: true, uniqueness: { case_sensitive: false },
                    format: { with: URI::MailTo::EMAIL_REGEXP }
  validates :points_balance, numericality: { greater_than_or_equal_to: 0 }
  validates :tier, inclusion: { in: TIERS.keys.map(&:to_s) }

  before_validation :normalise_email

  scope :opted_in, -> { where(marketing_opt_in: true) }
  scope :lapsed, ->(since = 18.months.ago) { where("last_order_at < ?", since) }

  # Spend over the trailing twelve months in minor units, counting only
  # orders that were paid and not refunded.
  def trailing_spend_minor(now: Time.current)
    orders.where(status: %w[paid picking shipped delivered])
          .where(created_at: (now - 12.months)..now)
          .sum(:total_minor)
  end

  # Highest tier whose threshold the customer's trailing spend reaches.
  def calculated_tier(now: Time.current)
    spend = trailing_spend_minor(now: now)
    TIERS.select { |_name, threshold| spend >= threshold }.keys.last.to_s
  end

  def award_points!(order)
    multiplier = { "bronze" => 1, "silver" => 1.25, "gold" => 1.5 }.fetch(tier, 1)
    points = ((order.total_minor / 100) * multiplier).floor
    return 0 if points.zero?

    transaction do
      point_transactions.create!(order: order, delta: points, reason: "order_paid")
      increment!(:points_balance, points)
    end
    points
  end

  # Converts points into a single-use voucher code. Raises if the customer
  # doesn't have enough points for even one voucher.
  def redeem_voucher!
    raise Loyalty::InsufficientPoints, "need #{POINTS_PER_VOUCHER} points" if points_balance < POINTS_PER_VOUCHER

    transaction do
      lock!
      point_transactions.create!(delta: -POINTS_PER_VOUCHER, reason: "voucher_redeemed")
      decrement!(:points_balance, POINTS_PER_VOUCHER)
      Voucher.create!(customer: self, amount_minor: VOUCHER_VALUE_MINOR, code: Voucher.generate_code,
                      expires_at: 6.months.from_now)
    end
  end

  private

  def normalise_email
    self.email = email.to_s.strip.downcase
  end
end
