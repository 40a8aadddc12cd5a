#include "collective-algorithm.h"

#include "range-checkers.h"
#include "simple-protocol.h"

#include "ns3/log.h"
#include "ns3/object-factory.h"

#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(CollectiveAlgorithm);

TypeId
CollectiveAlgorithm::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveAlgorithm")
            .SetParent<Object>()
            .SetGroupName("AiFabric")
            .AddAttribute("Protocol",
                          "How the schedule's messages are carried: NCCL's protocols (wire "
                          "bytes per data byte, slice size, hop and launch latency; a subclass "
                          "of ns3::CollectiveProtocol).",
                          TypeIdValue(SimpleProtocol::GetTypeId()),
                          MakeTypeIdAccessor(&CollectiveAlgorithm::m_protocol),
                          MakeTypeIdChecker(CollectiveProtocol::GetTypeId()));
    return tid;
}

namespace
{
[[noreturn]] void
Refuse(const CollectiveRequest& r, const std::string& algorithm, const std::string& why)
{
    throw std::invalid_argument(algorithm + " " + CollectiveOperationName(r.op) + " of " +
                                std::to_string(r.bytes) + " B over " + std::to_string(r.ranks) +
                                " ranks: " + why);
}

bool
NeedsPiecePerRank(CollectiveOperation op)
{
    return op == REDUCE_SCATTER || op == ALL_GATHER || op == ALL_TO_ALL;
}
} // namespace

CollectiveSchedule
CollectiveAlgorithm::Build(const CollectiveRequest& request) const
{
    CollectiveRequest r = request;
    r.protocol = ObjectFactory(m_protocol.GetName()).Create<CollectiveProtocol>();
    const std::string name = GetShortName();
    if (!Supports(r.op))
    {
        Refuse(r, name, "the algorithm does not implement this operation");
    }
    if (r.ranks < 2)
    {
        Refuse(r, name, "ranks must be at least 2");
    }
    if ((r.op == BROADCAST || r.op == REDUCE) && r.root >= r.ranks)
    {
        Refuse(r, name, "root " + std::to_string(r.root) + " must be < ranks");
    }
    if (r.elementBytes == 0 || r.bytes % r.elementBytes != 0)
    {
        Refuse(r, name, "bytes must be a multiple of the element size (" +
                            std::to_string(r.elementBytes) + " B)");
    }
    if (NeedsPiecePerRank(r.op) && r.bytes % (uint64_t(r.ranks) * r.elementBytes) != 0)
    {
        Refuse(r, name, "bytes must be a multiple of ranks x element size (" +
                            std::to_string(uint64_t(r.ranks) * r.elementBytes) + " B)");
    }
    if (!r.placement.empty() && r.placement.size() != r.ranks)
    {
        Refuse(r, name, "placement names " + std::to_string(r.placement.size()) + " ranks");
    }
    if (!r.simulatedRanks.empty() && r.simulatedRanks.size() != r.ranks &&
        r.simulatedRanks.size() != r.ranks + r.engineServers.size())
    {
        Refuse(r, name, "simulatedRanks names " + std::to_string(r.simulatedRanks.size()) + " ranks");
    }
    CheckRequest(r);
    CollectiveSchedule schedule = DoBuild(r);
    if (schedule.GetAlgorithm().empty())
    {
        schedule.SetAlgorithm(name);
    }
    // A generated schedule's steps follow a formula the tests prove against the stored steps
    // (validated here); validating it would cost what generating it saves.
    const std::string invalid = schedule.IsGenerated() ? "" : schedule.Validate();
    NS_ABORT_MSG_IF(!invalid.empty(), "CollectiveAlgorithm " << name << " built an invalid "
                                                             << CollectiveOperationName(r.op)
                                                             << " schedule: " << invalid);
    schedule.ShrinkToFit();
    NS_LOG_INFO(schedule.GetAlgorithm() << " " << CollectiveOperationName(r.op) << " " << r.bytes
                                        << " B, " << r.ranks << " ranks: "
                                        << schedule.GetNSteps() << " steps");
    return schedule;
}

void
CollectiveAlgorithm::CheckRequest(const CollectiveRequest&) const
{
}

void
CollectiveAlgorithm::RequirePowerOfTwo(const CollectiveRequest& r) const
{
    if ((r.ranks & (r.ranks - 1)) != 0)
    {
        Refuse(r, GetShortName(), "needs a power-of-two number of ranks");
    }
}

std::vector<Ptr<CollectiveAlgorithm>>
CollectiveAlgorithm::CreateAll()
{
    std::vector<Ptr<CollectiveAlgorithm>> all;
    for (uint32_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        TypeId tid = TypeId::GetRegistered(i);
        if (tid != GetTypeId() && tid.IsChildOf(GetTypeId()) && tid.HasConstructor())
        {
            all.push_back(ObjectFactory(tid.GetName()).Create<CollectiveAlgorithm>());
        }
    }
    return all;
}

std::vector<std::string>
CollectiveAlgorithm::GetNames()
{
    std::vector<std::string> names;
    for (const auto& algorithm : CreateAll())
    {
        names.push_back(algorithm->GetShortName());
    }
    return names;
}

Ptr<CollectiveAlgorithm>
CollectiveAlgorithm::Create(const std::string& name)
{
    std::string known;
    for (const auto& algorithm : CreateAll())
    {
        if (algorithm->GetShortName() == name)
        {
            return algorithm;
        }
        known += (known.empty() ? "" : ", ") + algorithm->GetShortName();
    }
    throw std::invalid_argument("algorithm '" + name + "' is unknown; known: " + known);
}

} // namespace ns3
