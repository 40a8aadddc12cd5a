#ifndef AI_FABRIC_COLLECTIVE_ALGORITHM_H
#define AI_FABRIC_COLLECTIVE_ALGORITHM_H

#include "collective-schedule.h"

#include "ns3/object.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup ai-fabric
 * \brief Base of the collective algorithms: turns a CollectiveRequest into a schedule.
 *
 * Build() is the one entry point: it checks what every algorithm needs (ranks >= 2, a root in
 * range, whole elements, pieces per rank where the operation needs them), lets the subclass
 * refuse what it cannot run (CheckRequest), builds (DoBuild) with the request's protocol set
 * from the Protocol attribute (NCCL's Simple by default), and validates the result.  An
 * algorithm is chosen by its short name through Create(), which finds every registered
 * subclass, so a new algorithm is one file pair.
 */
class CollectiveAlgorithm : public Object
{
  public:
    static TypeId GetTypeId();

    /**
     * The schedule for \p request.  Throws std::invalid_argument, saying which parameter and
     * why, if this algorithm cannot run it.
     */
    CollectiveSchedule Build(const CollectiveRequest& request) const;
    /** The name users pick it by ("ring", "tree", ...). */
    virtual std::string GetShortName() const = 0;
    /** Whether it implements \p op at all. */
    virtual bool Supports(CollectiveOperation op) const = 0;

    /** The protocol its schedules use. */
    TypeId GetProtocol() const { return m_protocol; }

    /** The algorithm called \p name; throws std::invalid_argument listing the names if none. */
    static Ptr<CollectiveAlgorithm> Create(const std::string& name);
    /** Every registered algorithm's short name. */
    static std::vector<std::string> GetNames();

  protected:
    /** Throw std::invalid_argument if \p request is one this algorithm cannot run. */
    virtual void CheckRequest(const CollectiveRequest& request) const;
    /** Throw std::invalid_argument unless \p ranks is a power of two. */
    void RequirePowerOfTwo(const CollectiveRequest& request) const;

  private:
    /** One instance of every registered subclass, in registration order. */
    static std::vector<Ptr<CollectiveAlgorithm>> CreateAll();
    virtual CollectiveSchedule DoBuild(const CollectiveRequest& request) const = 0;

    TypeId m_protocol;
};

} // namespace ns3

#endif
